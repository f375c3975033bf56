// Pass fold_packs: a CPU node whose output enters an accelerator region only through its
// weft.Pack writes the packed layout itself, straight into the device arena, and the Pack goes
// away (the executor computes such a node a slice at a time and copies each slice in, so
// neither the plain output nor a packed copy of it is ever whole on the host).
//   Pack(Im2Col(x))               -> Im2Col{layout_n, layout_c}(x)       (by output rows)
//   Pack(MaxPool(x)), AveragePool -> MaxPool{layout_n, layout_c}(x)      (by channel planes)
//   Im2Col{packed}(Quantize(x))   -> Im2Col{packed, out_scale}(x)        when every reader of
//                                    the Quantize is such an Im2Col: the int8 copy of the input
//                                    goes too (the im2col quantizes as it gathers, with
//                                    weft.Quantize's rounding)
// On ResNet-18 (`vta`, batch 1) this removes the stem's band buffers on the host (each band
// 470,400 B gathered, then packed) and the quantized input (150,528 B); the max pool already
// writes packed after band_pool (without it, this pass folds the pool's Pack). Before:
// pack_layouts (and band_pool). After: every Pack left reads a value that something else also
// reads, or that no foldable kind makes.
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of Pack and Quantize nodes folded away.
int fold_packs(Graph& g);

}  // namespace weft::compiler::graph::passes
