// Pass stem_space_to_depth; see stem_space_to_depth.h.
#include "compiler/graph/passes/stem_space_to_depth.h"

#include "compiler/graph/passes/partition.h"

namespace weft::compiler::graph::passes {

int stem_space_to_depth(Graph& g, const isa::Layout& l) {
  const int64_t BI = l.config.block_in();
  int rewritten = 0;
  for (NodeId id : g.topo_order()) {
    const Node n = g.node(id);
    if (n.kind != OpKind::QConv || n.inputs.size() > 3) continue;
    const TensorType xt = g.value(n.inputs[0]).type;
    const Value& wv = g.value(n.inputs[1]);
    const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0});
    const int64_t C = xt.shape[1], O = wv.type.shape[0], K = wv.type.shape[2];
    if (st != std::vector<int64_t>{2, 2} || wv.type.shape[3] != K || K < 2 ||
        n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1})
      continue;
    const int64_t K2 = (K + 1) / 2;
    auto up = [&](int64_t c) { return (c + BI - 1) / BI * BI; };
    if (K2 * K2 * up(4 * C) >= K * K * up(C)) continue;  // no gain
    const TensorType ot = g.value(n.outputs[0]).type;
    const int64_t OH = ot.shape[2], OW = ot.shape[3];
    const int64_t ZH = OH + K2 - 1, ZW = OW + K2 - 1;
    const int64_t useful = node_macs(g, n);
    // The weight.
    std::vector<int8_t> w2(static_cast<size_t>(O * 4 * C * K2 * K2), 0);
    const int8_t* w = wv.data->i8();
    for (int64_t o = 0; o < O; ++o)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t ky = 0; ky < K; ++ky)
          for (int64_t kx = 0; kx < K; ++kx) {
            const int64_t cc = c * 4 + (ky % 2) * 2 + kx % 2;
            w2[((o * 4 * C + cc) * K2 + ky / 2) * K2 + kx / 2] = w[((o * C + c) * K + ky) * K + kx];
          }
    TensorType wt(DType::I8, {O, 4 * C, K2, K2});
    wt.quant = wv.type.quant;
    const std::string wname = wv.name + ".s2d";
    ValueId nw = g.add_constant(wname, wt, ConstData::from_i8(w2));
    NodeFacts s2d;
    s2d.block = 2;
    s2d.gather_pads = pd;
    s2d.out_h = ZH;
    s2d.out_w = ZW;
    ValueId z = g.add_op(OpKind::SpaceToDepth, n.name + ".s2d", {n.inputs[0]}, {}, s2d);
    Attrs a = n.attrs;
    a["strides"] = std::vector<int64_t>{1, 1};
    a["pads"] = std::vector<int64_t>{0, 0, 0, 0};
    NodeFacts f = n.facts;
    f.macs = useful;
    const std::string oname = g.value(n.outputs[0]).name;
    NodeId nn = g.add_node(OpKind::QConv, n.name, {z, nw, n.inputs[2]}, a, {ot}, {oname}, f);
    g.replace_uses(n.outputs[0], g.node(nn).outputs[0]);
    g.erase_node(id);
    ++rewritten;
  }
  g.prune();
  return rewritten;
}

}  // namespace weft::compiler::graph::passes
