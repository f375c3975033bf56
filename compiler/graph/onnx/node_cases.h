// Reading the operator test cases of ONNX's backend test suite as Debian's libonnx-testdata
// installs them: DIR/<case>/model.onnx (one node) and DIR/<case>/test_data_set_N/input_K.pb,
// output_K.pb (serialized TensorProtos).
#pragma once

#include <string>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// One test_data_set_N: inputs and expected outputs in the model's order.
struct NodeCaseData {
  std::vector<TensorData> inputs, outputs;
};

/// One case.
struct NodeCase {
  std::string name, dir;
  std::vector<std::string> input_names;  // the model's graph inputs (not initializers), in order
  std::vector<NodeCaseData> sets;
};

/// Where the node cases are: $WEFT_ONNX_NODE_TESTS, else Debian's
/// /usr/include/onnx/backend/test/data/node; "" when neither exists.
std::string node_case_root();
/// Reads case `name` under `root`; UserError for a missing or unreadable case.
NodeCase read_node_case(const std::string& root, const std::string& name);

}  // namespace weft::compiler::onnx_import
