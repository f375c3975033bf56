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

// Re-creates the conv node `id` with new inputs, the attributes and facts of `like` and output
// type `out`; returns the new node.
NodeId rebuild(Graph& g, NodeId id, std::vector<ValueId> inputs, const Node& like, TensorType out,
               ValueId replaces) {
  const Node old = g.node(id);
  const std::string name = g.value(old.outputs[0]).name;
  NodeId nn = g.add_node(old.kind, old.name, inputs, like.attrs, {out}, {name}, like.facts);
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
        sole_consumer(g, g.node(cur).outputs[0], &add) && g.node(add).kind == OpKind::Add) {
      const Node a = g.node(add);
      const ValueId conv_out = g.node(cur).outputs[0];
      const ValueId r = a.inputs[0] == conv_out ? a.inputs[1] : a.inputs[0];
      const TensorType at = g.value(a.outputs[0]).type;
      const TensorType& rt = g.value(r).type;
      const TensorType& ct = g.value(conv_out).type;
      if (a.inputs[0] != a.inputs[1] && rt.quant == at.quant && rt.shape == at.shape &&
          at.quant.is_pow2() && ct.quant.is_pow2()) {
        Node c = g.node(cur);
        // One shift, or one per output channel (per-channel weights): each moves by the same
        // difference of exponents, and each channel's bias swaps its rounding term.
        const bool per_channel = c.facts.shifts.has_value();
        const Value& bv = g.value(c.inputs[2]);
        std::vector<int64_t> s0 =
            per_channel ? *c.facts.shifts : std::vector<int64_t>{c.facts.shift.value_or(0)};
        std::vector<int64_t> s1;
        bool in_range = per_channel ? static_cast<int64_t>(s0.size()) == bv.type.elements() : true;
        for (int64_t v : s0) {
          s1.push_back(v + at.quant.exponent() - ct.quant.exponent());
          in_range = in_range && s1.back() >= 0 && s1.back() <= 31;
        }
        if (in_range) {
          // New bias: the old rounding term out, the new one in (a fresh constant).
          std::vector<int32_t> b(bv.data->i32(), bv.data->i32() + bv.type.elements());
          for (size_t i = 0; i < b.size(); ++i) {
            const int64_t o = s0[per_channel ? i : 0], n = s1[per_channel ? i : 0];
            b[i] = b[i] - (o > 0 ? (int32_t{1} << (o - 1)) : 0) + (n > 0 ? (int32_t{1} << (n - 1)) : 0);
          }
          const std::string bname = bv.name;
          const TensorType btype = bv.type;
          ValueId nb = g.add_constant(bname, btype, ConstData::from_i32(b));
          if (per_channel)
            c.facts.shifts = s1;
          else
            c.facts.shift = s1[0];
          c.attrs["out_scale"] = static_cast<double>(at.quant.scale[0]);
          cur = rebuild(g, cur, {c.inputs[0], c.inputs[1], nb, r}, c, at, a.outputs[0]);
          g.erase_node(add);
          ++fused;
        }
      }
    }
    // Relu.
    NodeId relu;
    if (sole_consumer(g, g.node(cur).outputs[0], &relu) && g.node(relu).kind == OpKind::Relu) {
      Node c = g.node(cur);
      c.facts.relu = true;
      const ValueId rout = g.node(relu).outputs[0];
      cur = rebuild(g, cur, c.inputs, c, g.value(c.outputs[0]).type, rout);
      g.erase_node(relu);
      ++fused;
    }
  }
  g.prune();
  return fused;
}

}  // namespace weft::compiler::graph::passes
