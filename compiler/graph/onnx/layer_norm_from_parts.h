// LayerNorm written out, as torch.onnx.export writes nn.LayerNorm below opset 17 (ONNX has no
// LayerNormalization before it): mean = ReduceMean(x), d = x - mean, var = ReduceMean(d^2),
// y = d / sqrt(var + eps) * scale + bias, nine nodes and as many passes (ViT's 25 LayerNorms,
// ConvNeXt's 22). After import each such chain over the last axis, whose intermediate values
// nothing else reads, becomes one LayerNormalization node, which the fp32 path and an int8
// run's CPU nodes compute in one kernel (compiler/ops/cpu/normalization.h): the same function
// up to the rounding of its steps (it multiplies by 1 / sqrt(var + eps) where the parts divide).
#pragma once

#include "compiler/graph/graph.h"

namespace weft::compiler::onnx_import {

/// Rewrites every written-out LayerNorm of `g` over its last axis into a LayerNormalization
/// node (named after the chain's scope, its output the chain's; the bias input only where the
/// chain adds one); returns how many. Operands of Add and Mul may come in either order; the
/// exponent must be a scalar 2, epsilon a scalar, scale and bias float32 constants of the
/// normalized length.
int layer_norm_from_parts(graph::Graph& g);

}  // namespace weft::compiler::onnx_import
