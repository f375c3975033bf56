// The float element-wise node kinds of the graph IR and their functions in compiler/ops
// (float_eltwise.h): one place that says which kind computes which function, read by the host
// interpreter (and through it the fp32 LLVM path's kernels).
#pragma once

#include <optional>

#include "compiler/graph/graph.h"
#include "compiler/ops/float_eltwise.h"

namespace weft::compiler::graph {

/// The one-operand function of a Sigmoid, Tanh, Erf, Sqrt, Gelu, HardSigmoid (its alpha and beta,
/// ONNX's defaults 0.2 and 0.5) or HardSwish node; nothing for another kind.
std::optional<ops::Unary> unary_of(const Node& n);

/// A Clip's bounds as the interpreter reads them: the attributes (opset 6), then the min and
/// max inputs (opset 11 on), absent ones -inf and +inf; false when an input bound is not a
/// float constant.
bool constant_clip_bounds(const Graph& g, const Node& clip, double* lo, double* hi);

/// The two-operand function of an Add, Sub, Mul, Div or Pow node; nothing for another kind.
std::optional<ops::BinaryFn> binary_of(OpKind k);

}  // namespace weft::compiler::graph
