// Pass pack_layouts: the accelerator's nodes get its packed layouts, and layouts change only at
// the edges of accelerator regions.
//   weft.QConv{device=accel}  -> weft.AccelConv on NCHW{B}n{BI}c input/residual and
//                                NCHW{B}n{BO}c output; the weight constant repacked once, at
//                                compile time, to OIHW{BO}o{BI}i ([O/BO][I/BI][K][K][BO][BI])
//   weft.QDense{device=accel} -> weft.AccelDense (the same kernel as a 1x1 convolution: input
//                                NC{B}n{BI}c, weight [N,K,1,1] packed likewise)
// A weft.Pack is inserted where a CPU value enters a region and a weft.Unpack where an
// accelerator value leaves one (each at most once per value); values passed from one
// accelerator kernel to the next stay packed. Before: partition. After: every accelerator
// node reads and writes packed values only.
#pragma once

#include "compiler/graph/graph.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of Pack/Unpack nodes inserted.
int pack_layouts(Graph& g, const isa::Layout& layout);

/// Packs an OIHW int8 weight to [O/bo][I/bi][K][K][bo][bi] (zero padded).
std::vector<int8_t> pack_weight(const int8_t* w, const std::vector<int64_t>& oihw, int64_t bo,
                                int64_t bi);

}  // namespace weft::compiler::graph::passes
