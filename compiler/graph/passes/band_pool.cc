// Pass band_pool; see band_pool.h.
#include "compiler/graph/passes/band_pool.h"

#include <algorithm>

namespace weft::compiler::graph::passes {

namespace {

bool is_output(const Graph& g, ValueId v) {
  return std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
}

bool only_reader(const Graph& g, ValueId v, NodeId n) {
  return g.consumers(v) == std::vector<NodeId>{n} && !is_output(g, v);
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// One band of the pool: output rows [r0, r1), input rows [lo, hi), its pads.
struct Band {
  int64_t r0, r1, lo, hi, top, bottom;
};

}  // namespace

int band_pool(Graph& g) {
  int done = 0;
  for (NodeId pid : g.topo_order()) {
    const Node pack = g.node(pid);
    if (pack.dead || pack.kind != OpKind::Pack) continue;
    const Node* pool = g.producer(pack.inputs[0]);
    if (!pool || pool->kind != OpKind::MaxPool || !only_reader(g, pack.inputs[0], pid)) continue;
    const Node* cat = g.producer(pool->inputs[0]);
    if (!cat || cat->kind != OpKind::Concat || cat->get_int("axis", 0) != 2 ||
        !only_reader(g, pool->inputs[0], pool->id) || cat->inputs.size() < 2)
      continue;
    const TensorType& ct = g.value(cat->outputs[0]).type;
    if (ct.rank() != 4 || ct.layout.kind != Layout::Plain || ct.dtype != DType::I8) continue;
    // The bands: full Unpacks of accelerator outputs, read only by the Concat.
    std::vector<ValueId> src;  // packed band values
    std::vector<int64_t> start;
    int64_t rows = 0;
    bool ok = true;
    for (ValueId u : cat->inputs) {
      const Node* up = g.producer(u);
      ok = ok && up && up->kind == OpKind::Unpack && !up->facts.out_h && only_reader(g, u, cat->id);
      if (!ok) break;
      src.push_back(up->inputs[0]);
      start.push_back(rows);
      rows += g.value(u).type.shape[2];
    }
    if (!ok) continue;
    const auto k = pool->get_ints("kernel_shape"), st = pool->get_ints("strides", {1, 1}),
               pd = pool->get_ints("pads", {0, 0, 0, 0});
    if (k.size() != 2 || st.size() != 2 || pd.size() != 4 || pool->get_int("ceil_mode", 0) != 0 ||
        pool->get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1} ||
        pool->get_string("auto_pad", "NOTSET") != "NOTSET")
      continue;
    const int64_t H = ct.shape[2], kh = k[0], s = st[0], pt = pd[0];
    const TensorType& pool_t = g.value(pool->outputs[0]).type;
    const int64_t OH = pool_t.shape[2];
    const size_t B = src.size();
    // Output row r reads input rows [r*s - pt, r*s - pt + kh); it goes to the band holding its
    // window's last row.
    std::vector<Band> bands;
    for (size_t b = 0; b < B && ok; ++b) {
      const int64_t R = start[b], Hb = g.value(cat->inputs[b]).type.shape[2];
      Band d;
      d.r0 = b == 0 ? 0 : std::max<int64_t>(0, ceil_div(R + pt - kh + 1, s));
      d.r1 = b + 1 == B ? OH : std::min(OH, std::max<int64_t>(0, ceil_div(R + Hb + pt - kh + 1, s)));
      if (d.r1 <= d.r0) {
        ok = false;
        break;
      }
      const int64_t first = d.r0 * s - pt, last = (d.r1 - 1) * s - pt + kh;  // [first, last)
      d.lo = std::max<int64_t>(0, first);
      d.hi = std::min(H, last);
      d.top = d.lo - first;
      d.bottom = last - d.hi;
      // The window: a halo from the band before (at most that band) and a prefix of this one.
      ok = d.hi <= R + Hb && d.hi > R && d.lo <= R && (b == 0 || d.lo >= start[b - 1]) &&
           (d.top == 0 || b == 0) && (d.bottom == 0 || b + 1 == B) &&
           (d.hi - d.lo + d.top + d.bottom - kh) / s + 1 == d.r1 - d.r0;
      bands.push_back(d);
    }
    if (!ok || bands.back().r1 != OH) continue;
    for (size_t b = 1; b < B; ++b) ok = ok && bands[b].r0 == bands[b - 1].r1;
    if (!ok) continue;
    // Rewrite (adding nodes moves them: copies and ids from here on).
    const Node pk = pack;
    const Node pl = *pool;
    const NodeId cat_id = cat->id;
    const std::vector<ValueId> parts = cat->inputs;
    NodeFacts cpu;
    cpu.device = Device::kCpu;
    std::vector<ValueId> outs;
    for (size_t b = 0; b < B; ++b) {
      const Band& d = bands[b];
      const std::string sfx = ".rows" + std::to_string(d.r0);
      std::vector<ValueId> win;
      if (d.lo < start[b]) {
        NodeFacts f = cpu;
        f.y0 = d.lo - start[b - 1];
        f.out_h = start[b] - d.lo;
        const ValueId halo =
            g.add_op(OpKind::Unpack, g.value(src[b - 1]).name + ".halo", {src[b - 1]}, {}, f);
        win.push_back(halo);
      }
      ValueId mine = parts[b];
      if (d.hi < start[b] + g.value(parts[b]).type.shape[2]) {
        NodeFacts f = cpu;
        f.y0 = 0;
        f.out_h = d.hi - start[b];
        mine = g.add_op(OpKind::Unpack, g.value(src[b]).name + ".head", {src[b]}, {}, f);
      }
      win.push_back(mine);
      const ValueId in = win.size() == 1 ? win[0]
                                         : g.add_op(OpKind::Concat, pl.name + ".in" + sfx, win,
                                                    {{"axis", int64_t{2}}}, cpu);
      Attrs a = pl.attrs;
      a["pads"] = std::vector<int64_t>{d.top, pd[1], d.bottom, pd[3]};
      NodeFacts f = pl.facts;
      f.layout_n = pk.facts.pack_n.value_or(1);
      f.layout_c = pk.facts.pack_c.value_or(1);
      outs.push_back(g.add_op(OpKind::MaxPool, pl.name + sfx, {in}, a, f));
    }
    const ValueId joined =
        g.add_op(OpKind::Concat, g.value(pl.outputs[0]).name, outs, {{"axis", int64_t{2}}}, cpu);
    g.replace_uses(pk.outputs[0], joined);
    g.erase_node(pid);
    g.erase_node(pl.id);
    g.erase_node(cat_id);
    ++done;
  }
  g.prune();
  return done;
}

}  // namespace weft::compiler::graph::passes
