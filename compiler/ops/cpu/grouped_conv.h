// The CPU (LLVM) grouped and depthwise convolution of the fp32 graph path, on plain NCHW
// buffers: x [N, C, H, W], w [O, C/G, KH, KW] (ONNX's Conv with `group` G), y [N, O, OH, OW]
// without the bias (the interpreter adds it, as for the dense conv). Output channel o reads
// input channels [(o / (O/G)) * C/G, ...) only, so a depthwise layer costs its own MACs, not a
// dense conv's. The schedule: per output row, the window sums over the group's channels and
// the taps, the output columns vectorized innermost; taps outside the input read zero.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// The shape of a grouped 2D convolution: ONNX's four pads and two strides, no dilation.
struct GroupedConv {
  int64_t n, c, h, w, o, group, kh, kw, sh, sw, pt, pl, oh, ow;
  /// A cache key naming every field.
  std::string str() const;
};

/// float32 grouped conv2d (inputs X, W; output Y as above). UserError for impossible shapes.
LoweredOp grouped_conv2d(const GroupedConv& s);

}  // namespace weft::compiler::ops::cpu
