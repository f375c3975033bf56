// Pass split_groups (int8 graphs, accelerator targets): the GEMM core multiplies whole blocks of
// BLOCK_IN input by BLOCK_OUT output channels, so a grouped or depthwise weft.QConv (attribute
// `group` > 1) becomes ordinary QConvs over channel slices aligned to the blocks:
//   x -> Slice(channels [s*k*C/G, (s+1)*k*C/G)) -> QConv(block-diagonal w_s) -> Concat(axis 1)
// Each slice takes k whole groups, k the smallest divisor of G for which the slice's input and
// output channels are both whole blocks (k = G when none is: one dense convolution over all
// channels). w_s holds each group's weights on the diagonal and zeros between groups; the bias,
// the per-channel shifts and a fused residual are sliced alike. A depthwise layer over C
// channels on `vta` (16x16) becomes C/16 convolutions with 16x16 diagonal weights: 1/16 of
// each GEMM is useful, which the slices' "macs" (their useful multiply-accumulates) let the
// reports show. Before: fuse_epilogues. After: no QConv has a group other than 1.
#pragma once

#include "compiler/graph/graph.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph::passes {

/// Groups per slice for G groups of cg input and og output channels and a GEMM block of
/// `block` channels (see above).
int64_t groups_per_slice(int64_t G, int64_t cg, int64_t og, int64_t block);

/// The pass; returns the number of grouped convolutions split.
int split_groups(Graph& g, const isa::Layout& layout);

}  // namespace weft::compiler::graph::passes
