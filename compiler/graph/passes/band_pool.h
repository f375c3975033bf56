// Pass band_pool: a max pool over the joined row bands of an accelerator layer (the stem's
// conv1 after stem_im2col) runs in the same bands, so the joined layer output never exists.
//   Pack(MaxPool(Concat_H(Unpack(x_0), ..., Unpack(x_{B-1}))))
//     -> Concat_H(MaxPool_0(u_0), MaxPool_1(Concat_H(Unpack(x_0){y0, out_h}, Unpack(x_1))), ...)
// Band b's pool computes the output rows whose windows end in band b; the rows its windows
// need from band b-1 (the halo: 1 row for ResNet-18's 3x3 stride-2 pool) come from a second,
// windowed Unpack of band b-1's accelerator output. Each band's pool writes the packed layout
// (as after fold_packs), and plan_memory plans both Concats in place: each band is unpacked
// straight into its pool's input window on the host, and each band's pool writes straight into
// its rows of the joined packed output in the device arena. The host then holds one band's
// window (29 rows of 112 x 64 for ResNet-18 on `vta`) instead of conv1's whole output.
// Applies when each band's window is the halo from the band before plus rows of its own band
// (no window reaches into the next band), with the band pads only at the image's edges.
// Before: pack_layouts. After: the same function (the tests check it bit for bit).
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of pools split into bands.
int band_pool(Graph& g);

}  // namespace weft::compiler::graph::passes
