// The CPU (LLVM) element-wise operators of the graph executor's host nodes, on flat (plain,
// row-major) buffers of `count` elements: int8 quantize / dequantize / clip / requantize / add
// with the rounding of compiler/ops/int8_ir.h, and the float32 clip, per-channel
// scale-and-shift, one-operand functions and broadcasting two-operand functions of the fp32
// host path (compiler/ops/float_eltwise.h). Each vectorizes its innermost loop
// (vectorize_inner).
#pragma once

#include <cstdint>

#include <vector>

#include "compiler/ops/float_eltwise.h"
#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// float32 x -> int8 quantize(x, e) (scale 2^e).
LoweredOp quantize_f32(int64_t count, int e);
/// int8 x -> float32 x * 2^e.
LoweredOp dequantize_i8(int64_t count, int e);
/// int8 min(max(x, lo), hi).
LoweredOp clip_i8(int64_t count, int64_t lo, int64_t hi);
/// int8 sat8(shift_round(x, s)): from scale 2^e_in to 2^(e_in + s).
LoweredOp requantize_i8(int64_t count, int s);
/// int8 sat8(shift_round(a, sa) + shift_round(b, sb)).
LoweredOp add_i8(int64_t count, int sa, int sb);
/// float32 min(max(x, lo), hi), a side left out when it is infinite.
LoweredOp clip_f32(int64_t count, float lo, float hi);
/// float32 y = u(x) over `count` elements.
LoweredOp unary_f32(int64_t count, const Unary& u);
/// float32 y = f(a, b) with NumPy broadcasting: `a` and `b` the operands' shapes, `out` the
/// broadcast shape (as compiler/graph's inference gives it). Dimensions are merged where
/// neither operand changes between broadcasting and not, so a per-channel operand over NCHW
/// is a [C, H*W] by [C, 1] kernel.
LoweredOp binary_f32(BinaryFn f, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     const std::vector<int64_t>& out);
/// float32 y = x * a[c] + b[c] over [n, c, plane] (inference batch norm, folded).
LoweredOp scale_shift_f32(int64_t n, int64_t c, int64_t plane);

}  // namespace weft::compiler::ops::cpu
