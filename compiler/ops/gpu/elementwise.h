// The GPU (CUDA) element-wise and epilogue operators on NCHW tensors, one flat kernel each
// (flat.h): ReLU, the residual add, the float32 bias epilogue and the int8 requantization of
// DESIGN.md §7.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::gpu {

using ir::DType;

/// An NCHW activation shape.
struct Nchw {
  int64_t n = 1, c = 1, h = 1, w = 1;
  std::vector<int64_t> dims() const { return {n, c, h, w}; }
  int64_t elements() const { return n * c * h * w; }
};
/// UserError "OP: every dimension of the NCHW shape must be positive" unless they are.
void check_nchw(const Nchw& s, const char* op);

/// y = max(x, 0) (float32, int8 or int32).
LoweredOp relu(const Nchw& shape, DType dtype);
/// y = a + b, then max(., 0) when `relu`: float32, or int8 saturated to [-128, 127]
/// ([0, 127] with relu).
LoweredOp add(const Nchw& shape, DType dtype, bool relu);
/// float32 epilogue: y = x + bias[c], then max(., 0) when `relu`.
LoweredOp bias_add(const Nchw& shape, bool relu);
/// int8 epilogue (DESIGN.md §7): int32 x -> int8 clip((x >> shift) + bias[c], lo, hi) with
/// bias int32 per channel, [lo, hi] = [0, 127] or [-128, 127].
LoweredOp requantize(const Nchw& shape, int shift, int64_t lo, int64_t hi);

}  // namespace weft::compiler::ops::gpu
