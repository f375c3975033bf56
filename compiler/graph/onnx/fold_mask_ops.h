// Constant folding of the operators that computed attention masks use (Swin's shifted-window
// mask: ScatterND into a zero tensor, Mod, Not, comparisons, Transpose of index tables), on top
// of fold_constants.cc's shape sub-graph folders. Like those, each is evaluated only when every
// input is a constant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/graph/onnx/fold_evaluator.h"

namespace weft::compiler::onnx_import {

/// The operators evaluate_mask_op folds.
const std::vector<std::string>& mask_fold_operators();

/// Node `e.node()` evaluated when its operator is one of mask_fold_operators(), else nullopt.
/// UserError naming the node for malformed attributes or inputs (an integer Mod by zero, a
/// ScatterND index out of range, a bad perm).
std::optional<TensorData> evaluate_mask_op(const FoldEvaluator& e);

}  // namespace weft::compiler::onnx_import
