// Pass fold_packs; see fold_packs.h.
#include "compiler/graph/passes/fold_packs.h"

#include <algorithm>

namespace weft::compiler::graph::passes {

namespace {

bool is_output(const Graph& g, ValueId v) {
  return std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
}

}  // namespace

int fold_packs(Graph& g) {
  int folded = 0;
  for (NodeId id : g.topo_order()) {
    const Node p = g.node(id);
    if (p.kind != OpKind::Pack) continue;
    const ValueId v = p.inputs[0];
    const Node* q = g.producer(v);
    if (!q || q->dead || q->facts.device.value_or(Device::kCpu) != Device::kCpu) continue;
    if (q->kind != OpKind::Im2Col && q->kind != OpKind::MaxPool && q->kind != OpKind::AveragePool)
      continue;
    const TensorType& t = g.value(v).type;
    if (t.dtype != DType::I8 || t.rank() != 4 || t.layout.kind != Layout::Plain) continue;
    if (g.value(q->inputs[0]).type.layout.kind != Layout::Plain) continue;
    if (g.consumers(v) != std::vector<NodeId>{id} || is_output(g, v)) continue;
    Node& w = g.node(q->id);
    w.facts.layout_n = p.facts.pack_n.value_or(1);
    w.facts.layout_c = p.facts.pack_c.value_or(1);
    g.value(v).type.layout = g.value(p.outputs[0]).type.layout;
    g.replace_uses(p.outputs[0], v);
    g.erase_node(id);
    ++folded;
  }
  // An input quantized only for packed im2cols: they quantize as they gather.
  for (NodeId id : g.topo_order()) {
    const Node z = g.node(id);
    if (z.kind != OpKind::Quantize || z.facts.device.value_or(Device::kCpu) != Device::kCpu)
      continue;
    const ValueId u = z.outputs[0];
    const auto readers = g.consumers(u);
    if (readers.empty() || is_output(g, u)) continue;
    const bool all = std::all_of(readers.begin(), readers.end(), [&](NodeId r) {
      const Node& n = g.node(r);
      return n.kind == OpKind::Im2Col && n.facts.layout_c && n.inputs[0] == u;
    });
    if (!all) continue;
    for (NodeId r : readers) {
      Node& n = g.node(r);
      n.inputs[0] = z.inputs[0];
      n.attrs["out_scale"] = z.get_float("out_scale", 1.0);
    }
    g.erase_node(id);
    ++folded;
  }
  g.prune();
  return folded;
}

}  // namespace weft::compiler::graph::passes
