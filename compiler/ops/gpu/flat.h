// The GPU (CUDA) schedule of element-wise kernels: every output element one thread, the
// stage's loops fused, split by 256 and bound to blockIdx.x / threadIdx.x. The element-wise,
// epilogue and pooling operators are one such kernel each; the GEMMs end with one when their
// output is not their product itself.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::gpu {

/// An element-wise stage's loops fused, split by `threads` and bound to blockIdx.x and
/// threadIdx.x.
void schedule_flat(te::Schedule& s, const te::Tensor& t, int64_t threads = 256);

/// The element-wise operator `name` over `inputs` with one output of `shape`: y[i] = f(i).
LoweredOp flat_op(const std::string& name, const std::vector<te::Tensor>& inputs,
                  const std::vector<int64_t>& shape, ir::DType out,
                  const std::function<ir::Expr(const std::vector<ir::Expr>&)>& f);

}  // namespace weft::compiler::ops::gpu
