// Pass fuse_epilogues; see fuse_epilogues.h.
#include "compiler/graph/passes/fuse_epilogues.h"

namespace weft::compiler::graph::passes {

namespace {

bool sole_consumer(const Graph& g, ValueId v, NodeId* who) {
  auto c = g.consumers(v);
  for (ValueId o : g.outputs())
    if (o == v) return false;
  if (c.size() != 1) return false;
  *who = c[0];
  return true;
}

// Re-creates the conv node `id` with new inputs/attrs and output type; returns the new node.
NodeId rebuild(Graph& g, NodeId id, std::vector<ValueId> inputs, Attrs attrs, TensorType out,
               ValueId replaces) {
  const Node old = g.node(id);
  const std::string name = g.value(old.outputs[0]).name;
  NodeId nn = g.add_node(old.kind, old.name, inputs, attrs, {out}, {name});
  g.replace_uses(replaces, g.node(nn).outputs[0]);
  g.erase_node(id);
  return nn;
}

}  // namespace

int fuse_epilogues(Graph& g) {
  int fused = 0;
  for (NodeId id : g.topo_order()) {
    if (g.node(id).dead) continue;
    OpKind k = g.node(id).kind;
    if (k != OpKind::QConv && k != OpKind::QDense) continue;
    NodeId cur = id;
    // Add with a residual at the Add's scale.
    NodeId add;
    if (k == OpKind::QConv && g.node(cur).inputs.size() == 3 &&
        sole_consumer(g, g.node(cur).outputs[0], &add) && g.node(add).kind == OpKind::Add &&
        !g.node(cur).has("shifts")) {
      const Node a = g.node(add);
      const ValueId conv_out = g.node(cur).outputs[0];
      const ValueId r = a.inputs[0] == conv_out ? a.inputs[1] : a.inputs[0];
      const TensorType at = g.value(a.outputs[0]).type;
      const TensorType& rt = g.value(r).type;
      const TensorType& ct = g.value(conv_out).type;
      if (a.inputs[0] != a.inputs[1] && rt.quant == at.quant && rt.shape == at.shape &&
          at.quant.is_pow2() && ct.quant.is_pow2()) {
        Node c = g.node(cur);
        const int64_t s0 = c.get_int("shift", 0);
        const int64_t s1 = s0 + at.quant.exponent() - ct.quant.exponent();
        if (s1 >= 0 && s1 <= 31) {
          // New bias: the old rounding term out, the new one in (a fresh constant).
          const Value& bv = g.value(c.inputs[2]);
          std::vector<int32_t> b(bv.data->i32(), bv.data->i32() + bv.type.elements());
          for (int32_t& x : b)
            x = x - (s0 > 0 ? (int32_t{1} << (s0 - 1)) : 0) + (s1 > 0 ? (int32_t{1} << (s1 - 1)) : 0);
          const std::string bname = bv.name;
          const TensorType btype = bv.type;
          ValueId nb = g.add_constant(bname, btype, ConstData::from_i32(b));
          c.attrs["shift"] = s1;
          c.attrs["out_scale"] = static_cast<double>(at.quant.scale[0]);
          cur = rebuild(g, cur, {c.inputs[0], c.inputs[1], nb, r}, c.attrs, at, a.outputs[0]);
          g.erase_node(add);
          ++fused;
        }
      }
    }
    // Relu.
    NodeId relu;
    if (sole_consumer(g, g.node(cur).outputs[0], &relu) && g.node(relu).kind == OpKind::Relu) {
      Node c = g.node(cur);
      c.attrs["relu"] = int64_t{1};
      const ValueId rout = g.node(relu).outputs[0];
      cur = rebuild(g, cur, c.inputs, c.attrs, g.value(c.outputs[0]).type, rout);
      g.erase_node(relu);
      ++fused;
    }
  }
  g.prune();
  return fused;
}

}  // namespace weft::compiler::graph::passes
