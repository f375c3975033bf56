// Operators of ONNX Runtime's com.microsoft domain that exporters and its transformer optimizer
// write, read as the default-domain nodes Weft imports. GELU became an ONNX operator only at
// opset 20 (Gelu-20), beyond the opsets Weft imports and the ONNX library it builds with, so a
// model with a fused GELU carries it in this domain:
//   com.microsoft Gelu(X)             -> Gelu(X) {approximate="none"}   (the erf form)
//   com.microsoft FastGelu(X[, bias]) -> [Add(X, bias) ->] Gelu {approximate="tanh"}
#pragma once

#include <vector>

#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// The default-domain nodes for com.microsoft node `n`, in order, into `out`; false when `n` is
/// not one of the operators above (it stays an unsupported domain).
bool contrib_as_onnx(const Node& n, std::vector<Node>* out);

}  // namespace weft::compiler::onnx_import
