// The shape of a 2D convolution over an NCHW input with OIHW weights and an NCHW output, as the
// CPU (compiler/ops/cpu/conv2d.h) and GPU (compiler/ops/gpu/conv2d.h) operators and the scalar
// reference (reference.h) take it. The accelerator's conv2d has its own (accel/conv2d.h:
// square kernels, packed channel blocks).
#pragma once

#include <cstdint>

namespace weft::compiler::ops {

/// A 2D convolution: N x C x H x W input, O x C x KH x KW weights, zero padding `pad`.
struct Conv2dNchw {
  int64_t n = 1, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0, stride = 1, pad = 0;
  int64_t oh() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - kw) / stride + 1; }
};

/// UserError "conv2d: ..." for a shape no convolution has: a size that is not positive, a
/// negative padding, or a kernel larger than the padded input.
void check_conv2d_shape(const Conv2dNchw& s);

}  // namespace weft::compiler::ops
