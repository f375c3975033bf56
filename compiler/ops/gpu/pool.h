// The GPU (CUDA) pooling operators on NCHW tensors over k x k windows: max and average pooling
// (one flat kernel each, flat.h) and global average pooling (a sum kernel, then a scaling
// kernel). float32 or int8.
#pragma once

#include <cstdint>

#include "compiler/ops/gpu/elementwise.h"

namespace weft::compiler::ops::gpu {

/// Max pooling over k x k windows (padded taps never win); float32 or int8.
LoweredOp max_pool2d(const Nchw& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Average pooling over k x k windows, dividing by the taps inside the input (padding not
/// counted); float32 mean, int8 mean rounded half up.
LoweredOp avg_pool2d(const Nchw& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Global average pooling to [n, c]: float32 mean; int8 mean rounded half up.
LoweredOp global_avg_pool(const Nchw& shape, DType dtype);

}  // namespace weft::compiler::ops::gpu
