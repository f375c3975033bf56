// GELU written out, as torch.onnx.export writes nn.GELU() below opset 20 (ONNX has no Gelu
// before it): y = ((x / sqrt(2)) -> Erf -> + 1 -> * x) * 0.5, five nodes, each a pass over the
// activation (ViT's and ConvNeXt's MLPs). After import each such chain whose intermediate
// values nothing else reads becomes one Gelu node (approximate "none"), which both the fp32
// path and an int8 run's CPU nodes compute in one pass: x/2 (1 + erf(x / sqrt(2))) as
// compiler/ops/float_eltwise.h defines it, the same function up to the rounding of its steps.
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::onnx_import {

/// Rewrites every written-out GELU of `g` into a Gelu node (named after the chain's scope, its
/// output the chain's); returns how many. Operands may come in either order; the constants
/// must be scalars: sqrt(2) to float precision, 1 and 0.5.
int gelu_from_erf(graph::Graph& g);

}  // namespace weft::compiler::onnx_import
