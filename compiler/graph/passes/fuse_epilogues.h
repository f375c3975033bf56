// Pass fuse_epilogues (int8 graphs): folds what follows a weft.QConv/QDense into its epilogue,
// so that it is one accelerator kernel:
//   QConv -> Relu                         => QConv{relu=1}
//   QConv -> Add(., r) [-> Relu]          => QConv(x, w, bias, r){shift', relu}
// The Add is fused when the QConv's output is read only by it and the residual r already has
// the Add's scale (the quantizer arranges it); the shift becomes e_add - e_x - e_w and the
// bias's rounding term follows it (per-channel weights: every channel's shift in facts.shifts and
// its bias likewise). Before: quantize. After: no Relu or Add directly after a
// QConv it could fuse.
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of operators fused away.
int fuse_epilogues(Graph& g);

}  // namespace weft::compiler::graph::passes
