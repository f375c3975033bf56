// Written-out GELUs into Gelu nodes; see gelu_from_erf.h.
#include "compiler/graph/onnx/gelu_from_erf.h"

#include <cmath>
#include <vector>

namespace weft::compiler::onnx_import {

using graph::Graph;
using graph::kNone;
using graph::Node;
using graph::NodeId;
using graph::OpKind;
using graph::ValueId;

namespace {

// Whether v is a float32 constant of one element within `tol` of `want`.
bool scalar_is(const Graph& g, ValueId v, double want, double tol) {
  const graph::Value& c = g.value(v);
  return c.is_constant() && c.type.dtype == graph::DType::F32 && c.type.elements() == 1 &&
         std::fabs(double(c.data->f32()[0]) - want) <= tol;
}

// The one live node reading v, when v is no graph output; else null.
const Node* only_reader(const Graph& g, ValueId v) {
  for (ValueId o : g.outputs())
    if (o == v) return nullptr;
  const std::vector<NodeId> r = g.consumers(v);
  return r.size() == 1 ? &g.node(r[0]) : nullptr;
}

// The operand of binary node n that is not `v` (kNone when n does not read v exactly once).
ValueId other(const Node& n, ValueId v) {
  if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v)) return kNone;
  return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
}

}  // namespace

int gelu_from_erf(Graph& g) {
  int rewritten = 0;
  for (NodeId id : g.topo_order()) {
    const Node& div = g.node(id);
    if (div.dead || div.kind != OpKind::Div || div.inputs.size() != 2) continue;
    const ValueId x = div.inputs[0];
    // sqrt(2) as float32 rounds it (1.4142135381698608): within a float's half ulp.
    if (!scalar_is(g, div.inputs[1], std::sqrt(2.0), 1e-7)) continue;
    const Node* erf = only_reader(g, div.outputs[0]);
    if (!erf || erf->kind != OpKind::Erf) continue;
    const Node* add = only_reader(g, erf->outputs[0]);
    if (!add || add->kind != OpKind::Add) continue;
    const ValueId one = other(*add, erf->outputs[0]);
    if (one == kNone || !scalar_is(g, one, 1.0, 0.0)) continue;
    const Node* mul = only_reader(g, add->outputs[0]);
    if (!mul || mul->kind != OpKind::Mul || other(*mul, add->outputs[0]) != x) continue;
    const Node* half = only_reader(g, mul->outputs[0]);
    if (!half || half->kind != OpKind::Mul) continue;
    const ValueId h = other(*half, mul->outputs[0]);
    if (h == kNone || !scalar_is(g, h, 0.5, 0.0)) continue;
    if (g.value(x).type.dtype != graph::DType::F32 ||
        g.value(half->outputs[0]).type.shape != g.value(x).type.shape)
      continue;
    // The last node becomes the Gelu (its output, and so every reader, stays); the others go.
    const std::vector<NodeId> gone{div.id, erf->id, add->id, mul->id};
    Node& gelu = g.node(half->id);
    const size_t slash = div.name.rfind('/');
    gelu.name =
        (slash == std::string::npos ? div.name + "." : div.name.substr(0, slash + 1)) + "Gelu";
    gelu.kind = OpKind::Gelu;
    gelu.inputs = {x};
    gelu.attrs.clear();
    gelu.attrs["approximate"] = graph::Attr{std::string("none")};
    for (NodeId n : gone) g.erase_node(n);
    ++rewritten;
  }
  if (rewritten) g.prune();
  return rewritten;
}

}  // namespace weft::compiler::onnx_import
