// The CPU (LLVM) fallback of the graph's int8 QConv and QDense nodes (those the accelerator
// does not take): acc = sum(x * w) in int32, then the epilogue of compiler/graph/quantize.h,
// v = (acc + bias[c]) >> shifts[c] (wrapping add, arithmetic shift, per output channel),
// [+ residual], clip(v, relu ? 0 : -128, 127) as int8. Plain layouts: QConv NCHW input, OIHW
// weights, NCHW output (strides, pads, dilations); QDense x [M, K], w [N, K], y [M, N].
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// What the kernel computes. Its arguments: x, w, [bias int32 [O]], [residual int8, y's
/// shape], shifts int32 [O], then y.
struct QConv {
  bool conv = true;                                                                // false: QDense
  std::vector<int64_t> x, w, y;                                                    // shapes
  std::vector<int64_t> strides = {1, 1}, pads = {0, 0, 0, 0}, dilations = {1, 1};  // QConv
  bool bias = false, residual = false, relu = false;
};

/// The kernel of `q`.
LoweredOp qconv(const QConv& q);

}  // namespace weft::compiler::ops::cpu
