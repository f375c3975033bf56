// Pass plan_memory; see plan_memory.h.
#include "compiler/graph/passes/plan_memory.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph::passes {

namespace {

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

bool is_accel(const Node& n) {
  return n.kind == OpKind::AccelConv || n.kind == OpKind::AccelDense;
}

}  // namespace

MemoryPlan plan_memory(Graph& g) {
  MemoryPlan p;
  const std::vector<NodeId> order = g.schedule_order();
  std::map<NodeId, int> pos;
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
  const int end = static_cast<int>(order.size());
  // Lifetimes.
  for (NodeId id : order) {
    const Node& n = g.node(id);
    for (ValueId o : n.outputs) {
      Placement pl;
      pl.device = g.value(o).type.layout.kind == Layout::Blocked;
      pl.bytes = g.value(o).type.stored_bytes();
      pl.first = pl.last = pos[id];
      p.values[o] = pl;
    }
    for (ValueId in : n.inputs) {
      if (in == kNone) continue;
      auto it = p.values.find(in);
      if (it != p.values.end()) it->second.last = std::max(it->second.last, pos[id]);
      if (g.value(in).is_constant() && is_accel(n) && !p.weights.count(in)) {
        p.weights[in] = p.weight_bytes;
        p.weight_bytes = align_up(p.weight_bytes + g.value(in).type.stored_bytes(), 4096);
      }
    }
  }
  for (ValueId o : g.outputs())
    if (p.values.count(o)) p.values[o].last = end;
  // Concats in place: on the host, the inputs that are whole Unpacks read by nothing else are
  // written by their Unpack straight into their slice of the Concat's buffer (the others are
  // copied in by the Concat); in the device arena, along H, the inputs that CPU nodes write
  // packed (fold_packs, band_pool), when all are. The buffer lives from the first view on.
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (n.kind != OpKind::Concat || n.inputs.size() < 2) continue;
    const ValueId y = n.outputs[0];
    const TensorType& yt = g.value(y).type;
    int64_t axis = n.get_int("axis", 0);
    if (axis < 0) axis += yt.rank();
    const bool device = yt.layout.kind == Layout::Blocked;
    if (device && (yt.rank() != 4 || axis != 2)) continue;
    std::set<ValueId> seen;
    std::vector<bool> view;
    for (ValueId in : n.inputs) {
      const Node* pr = in == kNone ? nullptr : g.producer(in);
      bool ok = pr && seen.insert(in).second && g.consumers(in) == std::vector<NodeId>{id} &&
                std::find(g.outputs().begin(), g.outputs().end(), in) == g.outputs().end();
      if (device)
        ok = ok && pr->facts.layout_c &&
             (pr->kind == OpKind::MaxPool || pr->kind == OpKind::AveragePool ||
              pr->kind == OpKind::Im2Col);
      else
        ok = ok && pr->kind == OpKind::Unpack && !pr->facts.out_h;
      view.push_back(ok);
    }
    const auto views = std::count(view.begin(), view.end(), true);
    if (views == 0 || (device && views != static_cast<long>(view.size()))) continue;
    Placement& py = p.values[y];
    int64_t at = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueId in = n.inputs[i];
      if (view[i]) {
        Placement& pi = p.values[in];
        pi.view_of = y;
        pi.view_axis = axis;
        pi.view_at = at;
        py.first = std::min(py.first, pi.first);
      }
      at += g.value(in).type.shape[static_cast<size_t>(axis)];
    }
    g.node(id).facts.in_place = true;
  }
  // Greedy placement, largest first.
  std::vector<ValueId> ids;
  for (auto& [v, pl] : p.values) ids.push_back(v);
  // Buffers that views write a slice at a time (in-place Concats) first: they live across the
  // steps of all their parts (the stem's bands), so the parts' own values go around them.
  std::set<ValueId> parents;
  for (auto& [v, pl] : p.values)
    if (pl.view_of != kNone) parents.insert(pl.view_of);
  std::stable_sort(ids.begin(), ids.end(), [&](ValueId a, ValueId b) {
    const bool pa = parents.count(a) != 0, pb = parents.count(b) != 0;
    if (pa != pb) return pa;
    return p.values[a].bytes > p.values[b].bytes;
  });
  std::vector<ValueId> placed;
  for (ValueId v : ids) {
    Placement& pl = p.values[v];
    const int64_t al = pl.device ? p.device_alignment : p.host_alignment;
    (pl.device ? p.unshared_device : p.unshared_host) += pl.bytes;
    if (pl.view_of != kNone) continue;  // inside its parent
    // Busy intervals of overlapping lifetimes in the same arena, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (ValueId u : placed) {
      const Placement& q = p.values[u];
      if (q.device != pl.device || q.last < pl.first || pl.last < q.first) continue;
      busy.push_back({q.offset, q.offset + q.bytes});
    }
    std::sort(busy.begin(), busy.end());
    int64_t at = 0;
    for (auto [b, e] : busy) {
      if (at + pl.bytes <= b) break;
      at = std::max(at, align_up(e, al));
    }
    pl.offset = at;
    int64_t& arena = pl.device ? p.device_arena : p.host_arena;
    arena = std::max(arena, align_up(at + pl.bytes, al));
    placed.push_back(v);
  }
  for (auto& [v, pl] : p.values) {
    Node& n = g.node(g.value(v).producer);
    if (pl.view_of != kNone) {
      pl.offset = p.values[pl.view_of].offset;
      n.facts.into = g.value(pl.view_of).name;
      n.facts.at = pl.view_at;
    }
    n.facts.mem = std::string(pl.device ? "device" : "host");
    n.facts.offset = pl.offset;
    n.facts.bytes = pl.bytes;
  }
  check_memory_plan(p);
  return p;
}

void check_memory_plan(const MemoryPlan& p) {
  std::vector<std::pair<ValueId, Placement>> all;
  for (const auto& [v, pl] : p.values) {
    if (pl.view_of == kNone) {
      all.push_back({v, pl});
      continue;
    }
    // A view lives within its parent's lifetime, in the same arena.
    auto it = p.values.find(pl.view_of);
    if (it == p.values.end() || it->second.view_of != kNone || it->second.device != pl.device ||
        pl.first < it->second.first || pl.last > it->second.last)
      throw InternalError("memory plan: value " + std::to_string(v) +
                          " is a view outside its parent's lifetime");
  }
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) {
      const Placement &a = all[i].second, &b = all[j].second;
      if (a.device != b.device || a.last < b.first || b.last < a.first) continue;
      if (a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes)
        throw InternalError("memory plan: values " + std::to_string(all[i].first) + " and " +
                            std::to_string(all[j].first) + " overlap while both live");
    }
}

std::string describe(const MemoryPlan& p) {
  std::ostringstream o;
  o << "memory plan: device arena " << p.device_arena << " B (without reuse "
    << p.unshared_device << " B), host arena " << p.host_arena << " B (without reuse "
    << p.unshared_host << " B), accelerator weights " << p.weight_bytes << " B ("
    << p.weights.size() << " constants, packed once)\n";
  return o.str();
}

}  // namespace weft::compiler::graph::passes
