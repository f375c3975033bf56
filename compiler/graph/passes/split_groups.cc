// Pass split_groups; see split_groups.h.
#include "compiler/graph/passes/split_groups.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph::passes {

int64_t groups_per_slice(int64_t G, int64_t cg, int64_t og, int64_t block) {
  for (int64_t k = 1; k < G; ++k)
    if (G % k == 0 && (k * cg) % block == 0 && (k * og) % block == 0) return k;
  return G;
}

namespace {

// Elements [b, e) of the leading axis of a constant (a weight's or bias's output channels).
template <typename T>
std::vector<T> rows(const T* p, int64_t row, int64_t b, int64_t e) {
  return std::vector<T>(p + b * row, p + e * row);
}

// The slice of QConv `n` over groups [g0, g0 + k): its block-diagonal weight, its bias and
// shifts, its residual's channels; returns the slice's output.
ValueId add_slice(Graph& g, const Node& n, ValueId x, int64_t g0, int64_t k, int64_t G) {
  const Value wv = g.value(n.inputs[1]);  // copies: adding values may move g's
  const int64_t C = g.value(n.inputs[0]).type.shape[1], O = wv.type.shape[0];
  const int64_t cg = C / G, og = O / G, KK = wv.type.shape[2] * wv.type.shape[3];
  const int64_t o0 = g0 * og, o1 = (g0 + k) * og, c0 = g0 * cg, c1 = (g0 + k) * cg;
  const std::string sfx = ".g" + std::to_string(g0 / k);
  auto slice = [&](ValueId v, int64_t b, int64_t e, const std::string& what) {
    if (b == 0 && e == g.value(v).type.shape[1]) return v;
    return g.add_op(OpKind::Slice, n.name + sfx + what, {v},
                    {{"axis", int64_t{1}}, {"start", b}, {"end", e}});
  };
  // Weight [o1-o0, c1-c0, KH, KW]: output channel o reads the inputs of its own group only.
  std::vector<int8_t> w(static_cast<size_t>((o1 - o0) * (c1 - c0) * KK), 0);
  for (int64_t o = 0; o < o1 - o0; ++o) {
    const int64_t in0 = (o / og) * cg;  // its group's first input channel within the slice
    for (int64_t i = 0; i < cg * KK; ++i)
      w[static_cast<size_t>((o * (c1 - c0) + in0) * KK + i)] =
          wv.data->i8()[(o0 + o) * cg * KK + i];
  }
  TensorType wt(DType::I8, {o1 - o0, c1 - c0, wv.type.shape[2], wv.type.shape[3]});
  wt.quant = wv.type.quant;
  if (wt.quant.per_channel()) {
    wt.quant.scale = rows(wv.type.quant.scale.data(), 1, o0, o1);
    if (!wt.quant.zero_point.empty())
      wt.quant.zero_point = rows(wv.type.quant.zero_point.data(), 1, o0, o1);
  }
  std::vector<ValueId> ins = {slice(x, c0, c1, ".x"),
                              g.add_constant(wv.name + sfx, wt, ConstData::from_i8(w))};
  if (n.inputs.size() > 2 && n.inputs[2] != kNone) {
    const Value bv = g.value(n.inputs[2]);
    ins.push_back(g.add_constant(bv.name + sfx, TensorType(DType::I32, {o1 - o0}),
                                 ConstData::from_i32(rows(bv.data->i32(), 1, o0, o1))));
  } else if (n.inputs.size() > 3) {
    ins.push_back(kNone);
  }
  if (n.inputs.size() > 3 && n.inputs[3] != kNone) ins.push_back(slice(n.inputs[3], o0, o1, ".res"));
  NodeFacts f = n.facts;
  if (f.shifts) f.shifts = rows(f.shifts->data(), 1, o0, o1);
  Attrs a = n.attrs;
  a.erase("group");
  const ValueId y = g.add_op(OpKind::QConv, n.name + sfx, ins, a, f);
  // Its useful multiply-accumulates: each output reads the cg channels of its group.
  g.node(g.value(y).producer).facts.macs = g.value(y).type.elements() * cg * KK;
  return y;
}

}  // namespace

int split_groups(Graph& g, const isa::Layout& l) {
  const int64_t BI = l.config.block_in(), BO = l.config.block_out();
  int split = 0;
  for (NodeId id : g.topo_order()) {
    const Node n = g.node(id);
    const int64_t G = n.get_int("group", 1);
    if (n.kind != OpKind::QConv || G == 1) continue;
    const Value wv = g.value(n.inputs[1]);
    if (!wv.is_constant() || wv.type.layout.kind != Layout::Plain)
      throw InternalError("split_groups: node '" + n.name + "' has a weight that is not a plain constant");
    const int64_t C = g.value(n.inputs[0]).type.shape[1], O = wv.type.shape[0];
    const int64_t k = groups_per_slice(G, C / G, O / G, std::max(BI, BO));
    const ValueId x = n.inputs[0], old_out = n.outputs[0];
    const std::string oname = g.value(old_out).name;
    std::vector<ValueId> parts;
    for (int64_t g0 = 0; g0 < G; g0 += k) parts.push_back(add_slice(g, n, x, g0, k, G));
    const ValueId y = parts.size() == 1
                          ? parts[0]
                          : g.add_op(OpKind::Concat, oname, parts, {{"axis", int64_t{1}}});
    g.value(y).name = oname;
    g.erase_node(id);
    g.replace_uses(old_out, y);
    ++split;
  }
  if (split) g.prune();
  return split;
}

}  // namespace weft::compiler::graph::passes
