// A plain fp32 evaluator of graphs in logical (plain) layouts: the calibration engine of the
// quantizer and the fp32 side of the quantized-vs-fp32 comparison. Straight loops, no
// tiling; it evaluates Conv, BatchNormalization, Relu, Clip, MaxPool, AveragePool,
// GlobalAveragePool, Add, Flatten, Reshape, Gemm, MatMul (2D), Concat. (The onnx branch's
// float64 interpreter is the accuracy reference; this one only has to be fp32-faithful.)
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Called with every value computed (inputs included), in dependency order.
using ValueObserver = std::function<void(ValueId, const std::vector<float>&)>;

/// Evaluates `g` on `inputs` (one per graph input, in g.inputs() order, plain layout);
/// returns the graph outputs. UserError for an operator it does not evaluate or a wrong size.
std::vector<std::vector<float>> eval_f32(const Graph& g,
                                         const std::vector<std::vector<float>>& inputs,
                                         const ValueObserver& observe = {});

}  // namespace weft::compiler::graph
