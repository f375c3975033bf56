// Matching chains of nodes for the import's rewrites; see chain_match.h.
#include "compiler/graph/onnx/chain_match.h"

namespace weft::compiler::onnx_import {

using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::ValueId;

std::vector<NodeId> chain_readers(const Graph& g, ValueId v) {
  for (ValueId o : g.outputs())
    if (o == v) return {};
  return g.consumers(v);
}

const Node* only_reader(const Graph& g, ValueId v, graph::OpKind kind) {
  const std::vector<NodeId> r = chain_readers(g, v);
  return r.size() == 1 && g.node(r[0]).kind == kind ? &g.node(r[0]) : nullptr;
}

ValueId other_operand(const Node& n, ValueId v) {
  if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v)) return graph::kNone;
  return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
}

bool scalar_constant(const Graph& g, ValueId v, double* out) {
  if (v == graph::kNone) return false;
  const graph::Value& c = g.value(v);
  if (!c.is_constant() || c.type.dtype != graph::DType::F32 || c.type.elements() != 1) return false;
  *out = c.data->f32()[0];
  return true;
}

std::string chain_name(const std::string& first, const std::string& op) {
  const size_t slash = first.rfind('/');
  return (slash == std::string::npos ? first + "." : first.substr(0, slash + 1)) + op;
}

}  // namespace weft::compiler::onnx_import
