// Pass pack_layouts; see pack_layouts.h.
#include "compiler/graph/passes/pack_layouts.h"

#include <map>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph::passes {

std::vector<int8_t> pack_weight(const int8_t* w, const std::vector<int64_t>& s, int64_t bo,
                                int64_t bi) {
  const int64_t O = s[0], I = s[1], KH = s[2], KW = s[3];
  const int64_t ob = (O + bo - 1) / bo, ib = (I + bi - 1) / bi;
  std::vector<int8_t> out(static_cast<size_t>(ob * ib * KH * KW * bo * bi), 0);
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t y = 0; y < KH; ++y)
        for (int64_t x = 0; x < KW; ++x)
          out[((((o / bo) * ib + i / bi) * KH + y) * KW + x) * bo * bi + (o % bo) * bi + i % bi] =
              w[((o * I + i) * KH + y) * KW + x];
  return out;
}

int pack_layouts(Graph& g, const isa::Layout& l) {
  const int64_t B = l.config.batch(), BI = l.config.block_in(), BO = l.config.block_out();
  if (BI != BO)
    throw InternalError("pack_layouts: configurations with block_in != block_out are not supported");
  int inserted = 0;
  NodeFacts cpu;  // the copies around the accelerator's regions run on the CPU
  cpu.device = Device::kCpu;
  std::map<ValueId, ValueId> packed;    // plain value -> its packed copy
  std::map<ValueId, ValueId> unpacked;  // packed value -> its plain copy
  std::map<ValueId, bool> is_accel_out;
  std::map<ValueId, ValueId> packed_weight;  // a weight read by several kernels (the stem's
                                             // row bands) is packed once
  auto pack = [&](ValueId v) {
    if (is_accel_out.count(v)) return v;
    auto it = packed.find(v);
    if (it != packed.end()) return it->second;
    const std::string name = g.value(v).name + ".packed";
    NodeFacts f = cpu;
    f.pack_n = B;
    f.pack_c = BI;
    ValueId p = g.add_op(OpKind::Pack, name, {v}, {}, f);
    ++inserted;
    return packed[v] = p;
  };
  for (NodeId id : g.topo_order()) {
    const Node n = g.node(id);
    if (n.kind != OpKind::QConv && n.kind != OpKind::QDense) continue;
    if (n.facts.device != Device::kAccel) continue;
    const bool dense = n.kind == OpKind::QDense;
    // The weight, repacked once; an activation (a batched dense's second operand) by a Pack
    // into the weight's blocks at run time.
    const Value& wv = g.value(n.inputs[1]);
    if (!packed_weight.count(wv.id) && !wv.is_constant()) {
      NodeFacts f = cpu;
      f.pack_n = BO;
      f.pack_c = BI;
      const ValueId wid = wv.id;
      packed_weight[wid] = g.add_op(OpKind::Pack, wv.name + ".packed", {wid}, {}, f);
      ++inserted;
    } else if (!packed_weight.count(wv.id)) {
      std::vector<int64_t> oihw = wv.type.shape;
      if (dense) oihw = {oihw[0], oihw[1], 1, 1};
      TensorType wt(DType::I8, wv.type.shape);
      wt.quant = wv.type.quant;
      wt.layout = Layout::blocked(BO, BI);
      std::vector<int8_t> pw = pack_weight(wv.data->i8(), oihw, BO, BI);
      // Blocked rank-2 and rank-4 types store [O/bo][I/bi][rest][bo][bi]: the same bytes.
      const std::string wname = wv.name + ".packed";
      // add_constant may move g's values, `wv` with them: the key is taken first (the right
      // side of `=` runs first, so `packed_weight[wv.id] = g.add_constant(...)` read freed
      // memory; found by the sanitized tests).
      const ValueId wid = wv.id;
      packed_weight[wid] = g.add_constant(wname, wt, ConstData::from_i8(pw));
    }
    const ValueId nw = packed_weight.at(n.inputs[1]);
    std::vector<ValueId> ins = {pack(n.inputs[0]), nw};
    for (size_t i = 2; i < n.inputs.size(); ++i)
      ins.push_back(i == 3 ? pack(n.inputs[i]) : n.inputs[i]);
    NodeFacts f = n.facts;
    f.layout_n = B;
    f.layout_c = BO;
    const ValueId old_out = n.outputs[0];
    TensorType ot = g.value(old_out).type;
    ot.layout = Layout::blocked(B, BO);
    const std::string oname = g.value(old_out).name;
    NodeId nn = g.add_node(dense ? OpKind::AccelDense : OpKind::AccelConv, n.name, ins, n.attrs,
                           {ot}, {oname}, f);
    const ValueId new_out = g.node(nn).outputs[0];
    is_accel_out[new_out] = true;
    // Consumers: accelerator nodes read the packed value; others an Unpack made on demand.
    g.erase_node(id);
    g.replace_uses(old_out, new_out);
    for (NodeId cid : g.consumers(new_out)) {
      Node& c = g.node(cid);
      // (An accelerator node reading it as an activation weight reads it unpacked, then packed
      // into the weight's blocks.)
      const bool accel_reader =
          (c.kind == OpKind::QConv || c.kind == OpKind::QDense) &&
          c.facts.device == Device::kAccel && c.inputs[1] != new_out;
      if (accel_reader || cid == nn) continue;
      auto it = unpacked.find(new_out);
      ValueId u;
      if (it != unpacked.end()) {
        u = it->second;
      } else {
        u = g.add_op(OpKind::Unpack, oname + ".unpacked", {new_out}, {}, cpu);
        unpacked[new_out] = u;
        ++inserted;
      }
      Node& c2 = g.node(cid);
      for (ValueId& in : c2.inputs)
        if (in == new_out) in = u;
    }
    for (ValueId& o : g.outputs()) {
      if (o != new_out) continue;
      auto it = unpacked.find(new_out);
      if (it == unpacked.end()) {
        it =
            unpacked
                .emplace(new_out, g.add_op(OpKind::Unpack, oname + ".unpacked", {new_out}, {}, cpu))
                .first;
        ++inserted;
      }
      o = it->second;
    }
  }
  g.prune();
  return inserted;
}

}  // namespace weft::compiler::graph::passes
