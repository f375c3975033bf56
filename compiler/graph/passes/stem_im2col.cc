// Pass stem_im2col; see stem_im2col.h.
#include "compiler/graph/passes/stem_im2col.h"

#include <algorithm>

#include "compiler/graph/passes/partition.h"

namespace weft::compiler::graph::passes {

int stem_im2col(Graph& g, const isa::Layout& l, int64_t max_bytes) {
  const int64_t BI = l.config.block_in();
  int rewritten = 0;
  for (NodeId id : g.topo_order()) {
    const Node n = g.node(id);
    if (n.kind != OpKind::QConv || n.inputs.size() > 3) continue;
    const TensorType xt = g.value(n.inputs[0]).type;
    const Value& wv = g.value(n.inputs[1]);
    const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0});
    const int64_t C = xt.shape[1], O = wv.type.shape[0], K = wv.type.shape[2];
    if (C >= BI || st.size() != 2 || st[0] != st[1] || wv.type.shape[3] != K || K < 2 ||
        n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1} || n.get_int("group", 1) != 1 ||
        !wv.data)
      continue;
    auto up = [&](int64_t c) { return (c + BI - 1) / BI * BI; };
    const int64_t plain = K * K * up(C), dense = up(C * K * K);
    const int64_t K2 = (K + 1) / 2;
    const int64_t s2d = st[0] == 2 ? K2 * K2 * up(4 * C) : plain;
    if (dense >= plain || dense >= s2d) continue;
    const TensorType ot = g.value(n.outputs[0]).type;
    const int64_t OH = ot.shape[2], OW = ot.shape[3];
    // Row bands: the fewest that divide OH and keep each band's gathered input within budget.
    const int64_t row_bytes = xt.shape[0] * C * K * K * OW;
    int64_t bands = 1;
    while (bands < OH && (OH % bands != 0 || row_bytes * (OH / bands) > max_bytes)) ++bands;
    if (row_bytes * (OH / bands) > max_bytes) continue;
    const int64_t useful = node_macs(g, n);
    // The weight: [O][C][K][K] and [O][C*K*K][1][1] are the same bytes.
    TensorType wt(DType::I8, {O, C * K * K, 1, 1});
    wt.quant = wv.type.quant;
    const int8_t* w = wv.data->i8();
    const int64_t CKK = C * K * K;
    // The bias into the lanes the gathered channels leave free: constant input channels
    // {1, 64, 64, ...} and per output channel weights r, q1, q2, ... with
    // bias = r + 64 (q1 + q2 + ...), r in [0, 63], q in [-128, 127]. Exact integer sums, and
    // the epilogue loses its bias load and add (2 of the compute module's ~16 cycles per
    // output block for conv1 on `vta`). Not done when a bias needs more lanes than are free.
    const int64_t spare = up(CKK) - CKK;
    std::vector<std::vector<int8_t>> lanes;  // per output channel
    bool fold = n.inputs.size() > 2 && n.inputs[2] != kNone && spare >= 2 &&
                g.value(n.inputs[2]).data;
    int64_t used = 0;
    if (fold) {
      const int32_t* b = g.value(n.inputs[2]).data->i32();
      for (int64_t o = 0; o < O && fold; ++o) {
        const int64_t v = b[o];
        const int64_t q = v >= 0 ? v / 64 : -((-v + 63) / 64);  // floor(v / 64)
        std::vector<int8_t> l = {static_cast<int8_t>(v - 64 * q)};
        for (int64_t rest = q; rest != 0;) {
          const int64_t t = std::max<int64_t>(-128, std::min<int64_t>(127, rest));
          l.push_back(static_cast<int8_t>(t));
          rest -= t;
        }
        if (static_cast<int64_t>(l.size()) > spare) fold = false;
        used = std::max<int64_t>(used, static_cast<int64_t>(l.size()));
        lanes.push_back(l);
      }
    }
    if (!fold) used = 0;
    std::vector<int64_t> consts;
    for (int64_t j = 0; j < used; ++j) consts.push_back(j == 0 ? 1 : 64);
    std::vector<int8_t> w2(static_cast<size_t>(O * (CKK + used)), 0);
    for (int64_t o = 0; o < O; ++o) {
      std::copy(w + o * CKK, w + (o + 1) * CKK, w2.begin() + o * (CKK + used));
      for (size_t j = 0; fold && j < lanes[o].size(); ++j) w2[o * (CKK + used) + CKK + j] = lanes[o][j];
    }
    wt.shape[1] = CKK + used;
    ValueId nw = g.add_constant(wv.name + ".im2col", wt, ConstData::from_i8(w2));
    const std::string oname = g.value(n.outputs[0]).name;
    const int64_t BH = OH / bands;
    std::vector<ValueId> parts;
    for (int64_t b = 0; b < bands; ++b) {
      const std::string sfx = bands == 1 ? "" : ".rows" + std::to_string(b * BH);
      NodeFacts band;
      band.kernel = K;
      band.stride = st[0];
      band.gather_pads = pd;
      band.y0 = b * BH;
      band.out_h = BH;
      band.out_w = OW;
      if (fold) band.consts = consts;
      ValueId z = g.add_op(OpKind::Im2Col, n.name + ".im2col" + sfx, {n.inputs[0]}, {}, band);
      Attrs a = n.attrs;
      a["strides"] = std::vector<int64_t>{1, 1};
      a["pads"] = std::vector<int64_t>{0, 0, 0, 0};
      NodeFacts f = n.facts;
      f.macs = useful / bands;
      std::vector<ValueId> ins = {z, nw};
      if (n.inputs.size() > 2 && !fold) ins.push_back(n.inputs[2]);
      TensorType bt = ot;
      bt.shape[2] = BH;
      NodeId nn = g.add_node(OpKind::QConv, n.name + sfx, ins, a, {bt}, {oname + sfx}, f);
      parts.push_back(g.node(nn).outputs[0]);
    }
    ValueId y = parts[0];
    if (bands > 1) y = g.add_op(OpKind::Concat, oname, parts, {{"axis", int64_t{2}}});
    g.replace_uses(n.outputs[0], y);
    g.erase_node(id);
    ++rewritten;
  }
  g.prune();
  return rewritten;
}

}  // namespace weft::compiler::graph::passes
