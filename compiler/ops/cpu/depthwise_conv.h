// The CPU (LLVM) depthwise convolution of the fp32 graph path on channel-blocked tensors: ONNX's
// Conv with group = C = O (one input channel per output channel), as MobileNet, EfficientNet and
// ConvNeXt use it. Layouts: x [N, ceil(C/16), H, W, 16] (HostValue::cblock 16, what the blocked
// conv2d writes, so a depthwise layer reads the expansion before it as it is), w
// [ceil(C/16), KH, KW, 16], y [N, ceil(C/16), OH, OW, 16]; lanes past C are don't-cares in x and
// zero in w (and in the bias).
//
// Each output lane reads its own lane only, so the 16 channels of a block are one vector with
// no reduction across lanes: the schedule is a register tile of output columns x the block's
// lanes (vectorized), the KH x KW taps reduced around it, the zero padding a stage of the kernel
// made per band of output rows (a buffer of at most 256 KiB on the stack) so that no tap is
// guarded. (grouped_conv.h's NCHW kernel, vectorized along output columns with
// a guard on every tap, ran MobileNet V2's depthwise layers at about a twentieth of the speed of
// its 1x1 layers.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/float_eltwise.h"
#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// The channel block of the depthwise kernel (the blocked conv2d's output block).
inline constexpr int64_t kDepthwiseBlock = 16;

/// The shape of a depthwise convolution: ONNX's four pads and two strides, no dilation; and
/// the epilogue the kernel applies to each output before its store: `bias` (a third input B
/// [ceil(C/16), 16]) added, then with `clip` min(max(., lo), hi) (a Relu: hi = +inf; a NaN stays
/// NaN, as the interpreter's clip), then `act` (a SiLU, a HardSwish: float_eltwise.h's).
struct DepthwiseConv {
  int64_t n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr, oh, ow;
  bool bias = false, clip = false;
  float lo = 0.0f, hi = 0.0f;
  std::optional<Unary> act = std::nullopt;
  /// A cache key naming every field.
  std::string str() const;
  /// ceil(C / 16).
  int64_t blocks() const { return (c + kDepthwiseBlock - 1) / kDepthwiseBlock; }
};

/// float32 depthwise conv2d (inputs X, W and with `bias` B; output Y as above). UserError for
/// impossible shapes.
LoweredOp depthwise_conv2d(const DepthwiseConv& s);

/// ONNX's depthwise weight [C, 1, KH, KW] in the kernel's blocks [ceil(C/16), KH, KW, 16] (a
/// bias [C]: kh = kw = 1).
std::vector<float> pack_depthwise_weights(const float* w, int64_t c, int64_t kh, int64_t kw);

}  // namespace weft::compiler::ops::cpu
