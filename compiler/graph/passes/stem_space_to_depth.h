// Pass stem_space_to_depth: a stride-2 convolution with few input channels (a network's stem,
// ResNet-18's conv1: 3 channels, 7x7) would use 3 of the GEMM's BLOCK_IN lanes. It becomes a
// weft.SpaceToDepth (block 2, the conv's zero padding folded in) on the CPU and a stride-1
// convolution with 4x the channels and a ceil(K/2) kernel:
//   z[c*4 + by*2 + bx][Y][X] = xpad[2Y+by][2X+bx]
//   w'[o][c*4 + by*2 + bx][a][b] = w[o][c][2a+by][2b+bx]   (zero where 2a+by or 2b+bx >= K)
// which computes the same sums. For conv1 on `vta` the executed MACs per output fall from
// 49 x 16 lanes to 16 x 16 (12 of them useful). The node keeps its useful MACs in "macs".
// Applied when the executed MACs fall. Before: fuse_epilogues. After: no such stem remains.
#pragma once

#include "compiler/graph/graph.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of convolutions rewritten.
int stem_space_to_depth(Graph& g, const isa::Layout& layout);

}  // namespace weft::compiler::graph::passes
