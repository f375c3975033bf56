// Internal to runtime/gpu: the GEMM schedules that dense and conv2d share. A GemmSpec says
// what is multiplied (element functions of A and B, so that conv2d's input patches are
// gathered on the fly) and what the operator outputs from the product; gemm() builds the
// tensor expressions and the GPU schedule of the chosen path and lowers them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"
#include "runtime/gpu/ops.h"

namespace weft::rt::gpu {

namespace ir = compiler::ir;
namespace te = compiler::te;

/// C[i, j] = sum_r a(i, r) * b(j, r) for i < m, j < n, r < k.
struct GemmSpec {
  std::string name;
  int64_t m = 0, n = 0, k = 0;
  DType in = DType::kFloat32;
  /// Element (i, r) of A and (j, r) of B, called only with indices in range.
  std::function<ir::Expr(const ir::Expr&, const ir::Expr&)> a, b;
  /// Whether a(i, r) at (i, r + 1) is the next element in memory (then tiles of A can be
  /// copied with vector loads when the shape is a multiple of the tiles).
  bool a_contiguous = true, b_contiguous = true;
  std::vector<te::Tensor> inputs;
  /// The operator's output: its shape and value from c(i, j). Null `out`: the output is C
  /// itself ([m, n], the accumulator type).
  std::vector<int64_t> out_shape;
  std::function<ir::Expr(const std::vector<ir::Expr>&,
                         const std::function<ir::Expr(const ir::Expr&, const ir::Expr&)>&)>
      out;
  double ops = 0;
};

/// The accumulator type of an input type: float32 for floats, int32 for int8.
DType gemm_acc(DType in);
/// The path `s.path` resolves to for `spec` (UserError when it cannot run that dtype).
GemmPath resolve_path(const GemmSpec& spec, const GemmSchedule& s);
/// The lowered operator.
GpuOp gemm(const GemmSpec& spec, const GemmSchedule& s);

/// Lowers a schedule into a GpuOp over inputs, outputs and every other global buffer.
GpuOp finish(const std::string& name, te::Schedule& s, const std::vector<te::Tensor>& inputs,
             const std::vector<te::Tensor>& outputs, double ops, const std::string& path);
/// An element-wise stage's loops fused, split by `threads` and bound to blockIdx.x and
/// threadIdx.x.
void schedule_flat(te::Schedule& s, const te::Tensor& t, int64_t threads = 256);

}  // namespace weft::rt::gpu
