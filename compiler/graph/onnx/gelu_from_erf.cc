// Written-out GELUs into Gelu nodes; see gelu_from_erf.h.
#include "compiler/graph/onnx/gelu_from_erf.h"

#include <cmath>
#include <vector>

#include "compiler/graph/onnx/chain_match.h"

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
  double c = 0;
  return scalar_constant(g, v, &c) && std::fabs(c - want) <= tol;
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
    const Node* erf = only_reader(g, div.outputs[0], OpKind::Erf);
    if (!erf) continue;
    const Node* add = only_reader(g, erf->outputs[0], OpKind::Add);
    if (!add) continue;
    const ValueId one = other_operand(*add, erf->outputs[0]);
    if (one == kNone || !scalar_is(g, one, 1.0, 0.0)) continue;
    const Node* mul = only_reader(g, add->outputs[0], OpKind::Mul);
    if (!mul || other_operand(*mul, add->outputs[0]) != x) continue;
    const Node* half = only_reader(g, mul->outputs[0], OpKind::Mul);
    if (!half) continue;
    const ValueId h = other_operand(*half, mul->outputs[0]);
    if (h == kNone || !scalar_is(g, h, 0.5, 0.0)) continue;
    if (g.value(x).type.dtype != graph::DType::F32 ||
        g.value(half->outputs[0]).type.shape != g.value(x).type.shape)
      continue;
    // The last node becomes the Gelu (its output, and so every reader, stays); the others go.
    const std::vector<NodeId> gone{div.id, erf->id, add->id, mul->id};
    Node& gelu = g.node(half->id);
    gelu.name = chain_name(div.name, "Gelu");
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
