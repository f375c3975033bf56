// Constant folding at import: the shape sub-graphs that exporters write (torch.onnx.export's
// `x.view(x.size(0), -1)` is Shape -> Gather -> Unsqueeze -> Concat -> Reshape) are evaluated
// here, before the importer sees them, so later Reshape/Expand nodes read constant shapes. A
// node is folded when its operator is one of foldable_operators() and every input is a constant
// (an initializer or a Constant node's value); Shape also folds when its input's shape is fully
// known from ONNX's shape inference. Anything else is left for the importer, which names an
// operator it does not import.
#pragma once

#include <functional>
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

/// The static shape of a computed value `name` into *shape, or false where it is not known.
using StaticShapeOf = std::function<bool(const std::string& name, std::vector<int64_t>* shape)>;

/// Folds node `n` of `model` when it is foldable and its inputs are constants (for Shape: its
/// input's shape is static by `shape_of`): its output becomes an initializer with its type in
/// model.types, and the result is true. Float32 Add/Sub/Mul/Div fold only when
/// `float_arithmetic` (the importer asks for it where a constant-only result feeds a folded
/// node, as Swin's attention mask does; before import they stay float nodes).
bool fold_node(Model* model, const Node& n, const StaticShapeOf& shape_of, bool float_arithmetic);

/// Folds every foldable node of `model` in order (fold_node, shapes from ONNX's inference): its
/// output becomes an initializer (with its type in model.types) and the node is removed. The
/// importer folds again, node by node, what becomes constant only once the shapes of computed
/// values are Weft's own (after a Pad whose pads were themselves computed from constants).
void fold_constants(Model* model);

}  // namespace weft::compiler::onnx_import
