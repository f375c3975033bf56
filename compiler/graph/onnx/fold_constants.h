// Constant folding at import: the shape sub-graphs that exporters write (torch.onnx.export's
// `x.view(x.size(0), -1)` is Shape -> Gather -> Unsqueeze -> Concat -> Reshape) are evaluated
// here, before the importer sees them, so later Reshape/Expand nodes read constant shapes. A
// node is folded when its operator is one of foldable_operators() and every input is a constant
// (an initializer or a Constant node's value); Shape also folds when its input's shape is fully
// known from ONNX's shape inference. Anything else is left for the importer, which names an
// operator it does not import.
#pragma once

#include <string>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// The operators evaluated at import on constant inputs, in the order documented.
const std::vector<std::string>& foldable_operators();

/// Evaluates node `n` (of `model`, for messages and Shape's input type) whose inputs are
/// constants; `inputs[i]` is input i's value, null for an omitted optional input. UserError
/// naming the file and node for malformed attributes or values (an index out of range, shapes
/// that do not broadcast, a division by zero, a result over 2^24 elements).
TensorData evaluate_constant_node(const Model& model, const Node& n,
                                  const std::vector<const TensorData*>& inputs);

/// Folds every foldable node of `model` in order: its output becomes an initializer (with its
/// type in model.types) and the node is removed.
void fold_constants(Model* model);

}  // namespace weft::compiler::onnx_import
