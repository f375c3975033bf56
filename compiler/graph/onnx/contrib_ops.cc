// com.microsoft operators as default-domain nodes; see contrib_ops.h.
#include "compiler/graph/onnx/contrib_ops.h"

namespace weft::compiler::onnx_import {

bool contrib_as_onnx(const Node& n, std::vector<Node>* out) {
  if (n.domain != "com.microsoft" || (n.op != "Gelu" && n.op != "FastGelu")) return false;
  Node gelu = n;
  gelu.domain.clear();
  gelu.op = "Gelu";
  Attribute approximate;
  approximate.kind = Attribute::Kind::kString;
  approximate.s = n.op == "FastGelu" ? "tanh" : "none";
  gelu.attrs["approximate"] = approximate;  // any attribute of the file's stays, and is refused
  if (n.op == "FastGelu" && n.inputs.size() > 1 && !n.inputs[1].empty()) {
    Node add;
    add.name = n.name + ".bias";
    add.op = "Add";
    add.inputs = {n.inputs[0], n.inputs[1]};
    add.outputs = {n.outputs.at(0) + ".bias"};
    out->push_back(add);
    gelu.inputs = {add.outputs[0]};
  } else if (n.op == "FastGelu" && n.inputs.size() > 1) {
    gelu.inputs.resize(1);  // an omitted bias
  }
  out->push_back(gelu);
  return true;
}

}  // namespace weft::compiler::onnx_import
