// Pass fold_batch_norm (fp32 graphs): a BatchNormalization whose input is a Conv with constant
// weights read by nothing else is folded into that Conv: w' = w * g/sqrt(v+eps) per output
// channel, b' = (b - mean) * g/sqrt(v+eps) + beta. Before: any fp32 graph. After: no
// BatchNormalization directly after such a Conv (others are left for the CPU).
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of batch norms folded.
int fold_batch_norm(Graph& g);

}  // namespace weft::compiler::graph::passes
