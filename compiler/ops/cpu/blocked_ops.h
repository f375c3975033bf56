// The CPU (LLVM) element-wise, epilogue and pooling operators of a quantized ResNet on the
// channel-blocked activations conv2d writes ([n, cb, h, w, c], c the channel block): each a
// tensor expression with one default schedule (the channel blocks parallel, the channels
// vectorized). float32 -> float32 or int8 -> int8.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

using ir::DType;

/// A blocked activation shape [n, cb, h, w, c] (c: the channel block).
struct Blocked {
  int64_t n = 1, cb = 1, h = 1, w = 1, c = 16;
  std::vector<int64_t> dims() const { return {n, cb, h, w, c}; }
  int64_t elements() const { return n * cb * h * w * c; }
};

/// y = max(x, 0).
LoweredOp relu(const Blocked& shape, DType dtype);
/// Residual add then ReLU: float32 max(a + b, 0); int8 clip(a + b, 0, 127).
LoweredOp add_relu(const Blocked& shape, DType dtype);
/// float32 epilogue: y = max(x + bias[cb, c], 0).
LoweredOp bias_relu(const Blocked& shape);
/// int8 epilogue (DESIGN.md §7): int32 x -> int8 clip((x >> shift) + bias[cb, c], 0, 127).
LoweredOp requantize(const Blocked& shape, int shift);
/// Max pooling over a k x k window with stride and padding (padded taps never win); output
/// [n, cb, oh, ow, c].
LoweredOp max_pool2d(const Blocked& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Global average pooling to [n, cb, c]: float32 mean; int8 mean rounded half up.
LoweredOp global_avg_pool(const Blocked& shape, DType dtype);

}  // namespace weft::compiler::ops::cpu
