// The dense (fully connected / GEMM) operator for the accelerator: int8 A (M x K) times int8
// W (N x K) transposed, summed in int32, then the quantization epilogue (shift right, clip,
// narrow to int8) on the tensor ALU. Tensors are in the packed block layouts the GEMM
// instruction reads; M, N and K that are not multiples of the block (or of the tile) are
// padded with zero blocks, which the runtime fills when it packs the data.
//
// The schedule is the VTA one: one accumulator tile of tile_m x tile_n blocks per output
// tile, input and weight tiles of tile_k blocks per reduction step, the block loops
// tensorized to the configuration's GEMM, the epilogue computed in place in the accumulator
// and the tile copies marked as DMA. Virtual threads deal output tiles (along M or N) to
// threads whose loads, compute and stores then overlap.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compiler/te/schedule.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::ops {

/// Logical sizes of a dense: output M x N, reduction K.
struct DenseShape {
  int64_t m = 1, n = 1, k = 1;
};

/// The epilogue: out = clip(sum >> shift, lo, hi) as int8 (lo = 0 with relu, else -128).
struct DenseEpilogue {
  int shift = 8;
  bool relu = false;
  /// Per-output-channel shifts: after `shift`, one SHR with a register operand shifts each
  /// lane by its own amount (0..15) from a shift tile S[nb][BATCH][BLOCK_OUT] (int8, loaded
  /// into the accumulator; see channel_shifts.h).
  bool channel_shifts = false;
};

/// Schedule knobs, tiles in blocks. vthread_axis: 'm' or 'n'.
struct DenseKnobs {
  int64_t tile_m = 1, tile_n = 1, tile_k = 1;
  int64_t vthreads = 1;
  char vthread_axis = 'm';
  std::string describe() const;
};

/// A dense operator, defined and scheduled.
struct Dense {
  DenseShape shape;
  DenseKnobs knobs;
  DenseEpilogue epilogue;
  // Padded block counts: A is [mb][kb][batch][block_in], W [nb][kb][block_out][block_in],
  // D [mb][nb][batch][block_out].
  int64_t mb = 0, nb = 0, kb = 0;
  int64_t batch = 1, block_in = 1, block_out = 1;
  te::Tensor a, w, c, d;
  te::Tensor shifts;  // S[nb][batch][block_out] int8 when epilogue.channel_shifts
  std::unique_ptr<te::Schedule> schedule;
};

/// The legality of knobs for a (checked) shape: "" when the compiler accepts them, else why
/// not, naming the buffer, the need and the capacity. One home for the cheap checks that decide
/// whether a schedule compiles: the on-chip buffers (every virtual thread holds its own tiles,
/// and with `channel_shifts` a shift tile of tile_n blocks), the micro-op buffer, the 32-bit
/// DRAM offsets. make_dense, the knob chooser and the tuner's sampler all call it.
std::string dense_knobs_error(const isa::Layout& layout, const DenseShape& shape,
                              const DenseKnobs& k, bool channel_shifts = false);
/// Checks the shape, then dense_knobs_error as a UserError.
void check_dense_knobs(const isa::Layout& layout, const DenseShape& shape, const DenseKnobs& k,
                       bool channel_shifts = false);

/// Picks knobs for `vthreads` threads: the tiles that fit the buffers and minimize an
/// analytic estimate of the run time on `platform` (compute vs. DRAM traffic per reduction
/// step, overlapped when there are several threads, plus padding waste).
DenseKnobs choose_dense_knobs(const isa::Layout& layout, const isa::Platform& platform,
                              const DenseShape& shape, int64_t vthreads,
                              bool channel_shifts = false);

/// Defines and schedules the operator; UserError for a bad shape or knobs.
Dense make_dense(const isa::Layout& layout, const DenseShape& shape, const DenseKnobs& knobs,
                 const DenseEpilogue& epilogue);

}  // namespace weft::compiler::ops
