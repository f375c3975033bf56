// The CPU (LLVM) conv2d operator on channel-blocked tensors, float32 -> float32 or int8 ->
// int32, with its default schedule and the knobs of the CPU tuning space (ConvSchedule).
//
// Layouts: activations [N, C/cb, H, W, cb] (cb = conv_in_block(C)); weights [ceil(O/16), C/cb,
// KH, KW, cb, 16] (output channels past O are zero; for int8 the cb axis is packed into int32
// values by the schedule's k_pack: ceil(cb/2) pairs of int16 halves, layout.h's
// pair_conv_weights, or ceil(cb/4) quads of bytes, quad_conv_weights); outputs
// [N, ceil(O/16), OH, OW, 16]. layout.h converts from and to NCHW/OIHW. An int8 kernel whose
// block is whole words (cb a multiple of 4) types its input [N, C/cb, H, W, cb/4] int32 over
// the same bytes, so callers pass the int8 activations unchanged.
//
// The schedule: a register tile of output columns x output-channel blocks of 16 (vectorized),
// the padded (and, for int8, channel-paired) input a stage of the kernel, the reduction over
// input-channel blocks, kernel rows and columns and the channels of a block outside the tile.
#pragma once

#include <cstdint>

#include "compiler/ops/conv2d_nchw.h"
#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

using ir::DType;

/// The input channel block of a convolution over `c` channels (16, 8, or a divisor of c).
int64_t conv_in_block(int64_t c);
/// The output channel block (the vector width of the conv schedule).
inline constexpr int64_t kConvOutBlock = 16;
/// The conv2d schedule, a point of the CPU tuning space: a register tile of `ow` output
/// columns x `oc_blocks` output-channel blocks of 16 (vectorized), the reduction over
/// input-channel blocks, kernel rows and columns, and channels within a block outside it
/// (`reduce_order` 0: rc, ry, rx, ri; 1: ry, rx, rc, ri), `ci_unroll` channels of a block
/// unrolled, and the outer loop order (`rows_outer`: output rows outside the channel blocks).
struct ConvSchedule {
  int64_t ow = 0;  // 0: 7 when it divides OW, else 6
  bool parallel = true;
  int64_t oc_blocks = 1;
  int reduce_order = 0;
  int64_t ci_unroll = 1;
  bool rows_outer = false;
  // int8: channels per int32 of the reduction. 2: int16 pairs (dot2_i16, vpmaddwd); 4: byte
  // quads (dot4_u8s8, vpdpbusd where the host has AVX-512 VNNI), the input offset by +128 to
  // unsigned bytes in the kernel's padded copy (a padding tap reads 128 like any zero) and
  // 128 x the sum of each output channel's weights taken back out at the end.
  int64_t k_pack = 2;
  bool operator==(const ConvSchedule& o) const {
    return ow == o.ow && parallel == o.parallel && oc_blocks == o.oc_blocks &&
           reduce_order == o.reduce_order && ci_unroll == o.ci_unroll &&
           rows_outer == o.rows_outer && k_pack == o.k_pack;
  }
};
/// UserError when `s` is not a schedule conv2d can build for `shape`.
void validate(const Conv2dNchw& shape, DType dtype, const ConvSchedule& s);
/// Blocked conv2d; float32 -> float32 or int8 -> int32. UserError for impossible shapes.
/// With `groups` > 1 (float32 only; each group's output channels whole blocks of 16): ONNX's
/// grouped conv, weights [O, C/groups, KH, KW] packed as a conv over C/groups channels (the
/// layout above with C/groups), the input blocks those of conv_in_block(C/groups); an output
/// block reduces over its group's input blocks only, and the schedule is a group's.
/// `x_block` > 0 (float32): the input is held in blocks of that many channels, a multiple of
/// the kernel's ([N, ceil(C / x_block), H, W, x_block], its spare lanes never read).
LoweredOp conv2d(const Conv2dNchw& shape, DType dtype, const ConvSchedule& s = {},
                 int64_t groups = 1, int64_t x_block = 0);

}  // namespace weft::compiler::ops::cpu
