// Pass stem_im2col: a convolution with fewer input channels than the GEMM's BLOCK_IN lanes (a
// network's stem, ResNet-18's conv1: 3 channels, 7x7, stride 2) becomes a weft.Im2Col on the CPU
// (the conv's zero padding and stride folded in) and a 1x1 stride-1 convolution over the
// C*K*K gathered channels:
//   z[(c*K + ky)*K + kx][Y][X] = xpad[c][s*Y+ky][s*X+kx]
//   w'[o][(c*K + ky)*K + kx][0][0] = w[o][c][ky][kx]      (the same bytes, reshaped)
// which computes the same sums. The taps fill the lanes densely: for conv1 on `vta` the executed
// MACs per output fall from 49 x 16 lanes (16 x 16 after stem_space_to_depth) to 160 (147 of
// them useful). The node keeps its useful MACs in "macs". Applied when the executed MACs fall
// below both the plain conv's and stem_space_to_depth's.
// The gathered input is C*K*K/s^2 times the input (2.4 MB for conv1); to keep the activation
// arenas small the output rows are split into the fewest equal bands whose gathered input fits
// in 'max_bytes': one Im2Col (facts.y0: the band's first row) and one 1x1 conv per band, and a
// Concat of the bands along H (on the CPU, where the stem's output goes anyway for the max
// pool). Before: fuse_epilogues. After: stem_space_to_depth (which finds nothing left).
#pragma once

#include <cstdint>

#include "compiler/graph/graph.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of convolutions rewritten. max_bytes: the most bytes of gathered
/// input per band (a stem whose single output row exceeds it is left to stem_space_to_depth).
int stem_im2col(Graph& g, const isa::Layout& layout, int64_t max_bytes = int64_t{1} << 62);

}  // namespace weft::compiler::graph::passes
