// The CPU (LLVM) pooling operators of the graph executor's host nodes, on plain [planes, h, w]
// buffers (planes = batch x channels): max pooling (int8 or float32), average pooling (int8
// with the rounding of compiler/ops/int8_ir.h, or float32) and the float32 global average.
// Windows have separate kernel sizes, strides and the four ONNX pads.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// A pooling window over [planes, h, w] -> [planes, oh, ow]: kernel kh x kw, strides sh, sw,
/// pads top, left, bottom, right.
struct Window {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, pt, pl, pb, pr;
  /// "PxHxW->OHxOW kKHxKW sSHxSW pT,L,B,R".
  std::string str() const;
  /// Whether some tap of some window falls outside the input.
  bool needs_guard() const;
};

/// The input row (or column) of output position `o` and tap `r`: o * stride + r - pad.
ir::Expr tap(const ir::Expr& o, const ir::Expr& r, int64_t stride, int64_t pad);

/// Max pooling (int8 or float32); a tap outside the input never wins.
LoweredOp max_pool(const Window& s, ir::DType t);
/// int8 average pooling from scale 2^e_in to 2^(e_in - d): sat8(round_div(sum * 2^d, count))
/// (or round_div(sum, count * 2^-d) for d < 0), count the taps inside the input (or, with
/// `include_pad`, inside the padded input).
LoweredOp avg_pool_i8(const Window& s, bool include_pad, int d);
/// float32 average pooling: the window's sum times recip[oy, ox], a second input of [oh, ow]
/// reciprocals of the tap counts (the caller's choice of count).
LoweredOp avg_pool_f32(const Window& s);
/// float32 mean of each of `planes` planes of `hw` values.
LoweredOp global_avg_pool_f32(int64_t planes, int64_t hw);

}  // namespace weft::compiler::ops::cpu
