// The 2D convolution operator for the accelerator, in the quantized form of a ResNet layer:
// int8 input (N, IC, H, W) and weight (OC, IC, K, K), stride and zero padding, int32 sums,
// then the epilogue on the tensor ALU: (sum >> shift) + bias, clipped to [0, 127], as int8.
//
// Packed layouts (NCHW with the configuration's channel blocks, and batch blocks):
//   input  A[nb][icb][H][W][BATCH][BLOCK_IN]
//   weight W[ocb][icb][K][K][BLOCK_OUT][BLOCK_IN]
//   bias   B[ocb][BATCH][BLOCK_OUT] (int32, each channel's value repeated over the batch rows)
//   output D[nb][ocb][OH'][OW'][BATCH][BLOCK_OUT]
// Channels and batch are padded with zeros to whole blocks; OH and OW are rounded up to whole
// tiles (the extra rows are computed on zero padding and dropped when unpacking). The input is
// never padded in memory: where a tile reads outside it, a zero-padded view of it is inlined
// into the tile copies, which become DMA loads with pads; elsewhere (dense and 1x1 layers) the
// copies read it as it is.
//
// The schedule: one accumulator tile of tile_oc channel blocks x tile_h x tile_w output pixels
// per output tile, input and weight tiles of tile_ic channel blocks per reduction step, the
// block loops tensorized to the GEMM; virtual threads deal output tiles along oc or h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compiler/te/schedule.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::ops {

/// A convolution layer.
struct Conv2dShape {
  int64_t n = 1, h = 1, w = 1, ic = 1, oc = 1, k = 1, stride = 1, pad = 0;
  int64_t out_h() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - k) / stride + 1; }
  /// Multiply-accumulates of the layer (unpadded).
  int64_t macs() const { return n * oc * out_h() * out_w() * ic * k * k; }
  std::string describe() const;
};

/// The epilogue: clip((sum >> shift) + bias, relu ? 0 : -128, 127); with `bias_first`
/// clip(((sum + bias) >> shift) + residual, ...) instead: the bias at the accumulator's scale
/// (it can carry the rounding term of the shift), and with `residual` an int8 tensor R of the
/// output's packed layout added after the shift (loaded into the accumulator as ACC_8BIT), so
/// that a ResNet block's skip connection stays on the accelerator.
struct Conv2dEpilogue {
  int shift = 8;
  bool bias = true;
  bool relu = true;
  bool bias_first = false;
  bool residual = false;
  /// Per-output-channel shifts (per-channel weights): after the immediate `shift` (the part
  /// common to all channels), one SHR with a register operand shifts each lane by its own
  /// amount from a shift tile S[ocb][BATCH][BLOCK_OUT] (int8, 0..15, loaded into the
  /// accumulator like the bias; see channel_shifts.h).
  bool channel_shifts = false;
};

/// Schedule knobs: tiles (channels in blocks, pixels in output rows/columns), virtual
/// threads and the axis they split ('o' output channels, 'h' output rows).
struct Conv2dKnobs {
  int64_t tile_h = 1, tile_w = 1, tile_ic = 1, tile_oc = 1;
  int64_t vthreads = 1;
  char vthread_axis = 'o';
  /// Batch blocks per output tile: the weight tile is loaded once for all of them. Only for a
  /// 1x1 output (a dense layer, whose rows are the batch), where it is the only reuse of the
  /// weights; 1 elsewhere.
  int64_t tile_n = 1;
  std::string describe() const;
};

/// A convolution, defined and scheduled.
struct Conv2d {
  Conv2dShape shape;
  Conv2dKnobs knobs;
  Conv2dEpilogue epilogue;
  int64_t nb = 0, icb = 0, ocb = 0;  // blocks of batch, input and output channels
  int64_t oh = 0, ow = 0;            // output size rounded up to whole tiles
  int64_t batch = 1, block_in = 1, block_out = 1;
  te::Tensor a, w, bias, c, d;
  te::Tensor residual;  // R[nb][ocb][OH'][OW'][BATCH][BLOCK_OUT] int8 when epilogue.residual
  te::Tensor shifts;    // S[ocb][BATCH][BLOCK_OUT] int8 when epilogue.channel_shifts
  std::unique_ptr<te::Schedule> schedule;
};

/// Checks a shape; UserError naming the bad value.
void check_conv2d_shape(const Conv2dShape& s);
/// The legality of knobs for a (checked) shape: "" when the compiler accepts them, else why
/// not, naming the buffer, the need and the capacity. One home for the cheap checks that decide
/// whether a schedule compiles: the on-chip buffers (every virtual thread holds its own tiles),
/// the micro-op buffer, tiles that would load only padding, the DMA fields. make_conv2d and the
/// tuner's sampler both call it. `residual`: the epilogue also holds a residual tile in the
/// accumulator; `channel_shifts`: a per-channel shift tile (tile_oc more blocks).
std::string conv2d_knobs_error(const isa::Layout& layout, const Conv2dShape& shape,
                               const Conv2dKnobs& k, bool residual = false,
                               bool channel_shifts = false);
/// check_conv2d_shape, then conv2d_knobs_error as a UserError.
void check_conv2d_knobs(const isa::Layout& layout, const Conv2dShape& shape,
                        const Conv2dKnobs& k, bool residual = false, bool channel_shifts = false);

/// Candidate knobs for `vthreads` threads that pass check_conv2d_knobs, best first by an
/// analytic estimate of the run time on `platform` (at most `limit` of them).
std::vector<Conv2dKnobs> conv2d_candidates(const isa::Layout& layout,
                                           const isa::Platform& platform,
                                           const Conv2dShape& shape, int64_t vthreads,
                                           size_t limit, bool residual = false,
                                           bool channel_shifts = false);

/// Defines and schedules the operator; UserError for a bad shape or knobs.
Conv2d make_conv2d(const isa::Layout& layout, const Conv2dShape& shape, const Conv2dKnobs& knobs,
                   const Conv2dEpilogue& epilogue);

}  // namespace weft::compiler::ops
