// Pass skip_pad_taps; see skip_pad_taps.h.
#include "compiler/passes/skip_pad_taps.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace weft::compiler::passes {

namespace {

using accel::Op;

std::vector<int64_t> key_of(const std::vector<isa::Uop>& uops) {
  std::vector<int64_t> k;
  for (const isa::Uop& u : uops) k.insert(k.end(), {u.dst, u.src, u.wgt});
  return k;
}

}  // namespace

accel::Program skip_pad_taps(accel::Program p, const isa::Layout& l, int64_t* dropped) {
  if (dropped) *dropped = 0;
  // INP block -> the last load wrote padding there (a table by block: every GEMM iteration
  // asks).
  std::vector<char> pad(static_cast<size_t>(std::max<int64_t>(l.inp_depth, 0)), 0);
  // Per op of `p`: the iterations it may drop and its replacement GEMMs.
  std::vector<std::vector<Op>> repl(p.ops.size());
  std::vector<int64_t> gain(p.ops.size(), 0);
  for (size_t oi = 0; oi < p.ops.size(); ++oi) {
    const Op& op = p.ops[oi];
    if (op.kind == Op::Kind::kLoad && op.mem == isa::MemType::kInp) {
      const int64_t rows = op.y_pad0 + op.y_size + op.y_pad1;
      const int64_t cols = op.x_pad0 + op.x_size + op.x_pad1;
      for (int64_t y = 0; y < rows; ++y)
        for (int64_t x = 0; x < cols; ++x) {
          const int64_t b = op.sram_base + y * cols + x;
          if (b < 0) continue;
          if (static_cast<size_t>(b) >= pad.size()) pad.resize(static_cast<size_t>(b) + 1, 0);
          pad[static_cast<size_t>(b)] = y < op.y_pad0 || y >= op.y_pad0 + op.y_size ||
                                        x < op.x_pad0 || x >= op.x_pad0 + op.x_size;
        }
      continue;
    }
    if (op.kind != Op::Kind::kGemm || op.reset) continue;
    auto is_pad = [&](int64_t src) {
      return src >= 0 && static_cast<size_t>(src) < pad.size() && pad[static_cast<size_t>(src)];
    };
    bool any = false;
    for (int64_t i = 0; i < op.iter_out && !any; ++i)
      for (int64_t j = 0; j < op.iter_in && !any; ++j)
        for (const isa::Uop& u : op.uops)
          if (is_pad(u.src + i * op.src_factor_out + j * op.src_factor_in)) {
            any = true;
            break;
          }
    if (!any) continue;
    int64_t here = 0;
    // Which micro-ops read padding in each (i, j).
    std::vector<std::vector<bool>> drop(static_cast<size_t>(op.iter_out * op.iter_in));
    for (int64_t i = 0; i < op.iter_out; ++i)
      for (int64_t j = 0; j < op.iter_in; ++j)
        for (const isa::Uop& u : op.uops) {
          const bool d = is_pad(u.src + i * op.src_factor_out + j * op.src_factor_in);
          drop[static_cast<size_t>(i * op.iter_in + j)].push_back(d);
          here += d;
        }
    auto at = [&](int64_t i, int64_t j) -> const std::vector<bool>& {
      return drop[static_cast<size_t>(i * op.iter_in + j)];
    };
    // The micro-ops in classes by where they read padding (the same (i, j) iterations); per
    // class, the iterations it keeps in runs of consecutive i with the same kept j and runs
    // of consecutive j with the same kept i: on each run-by-run rectangle the class is kept
    // or dropped as a whole, so one GEMM with both hardware loops over the rectangle (its
    // origin folded into the micro-ops) runs each kept rectangle. A convolution tile at the
    // image's corner: the interior pixels keep every tap in one GEMM, the border rows and
    // columns keep a rectangle of taps each; the kernels hold each micro-op about once. The
    // original order is i outer, j inner: the split only permutes additions into the
    // accumulator (the same sums).
    std::map<std::vector<bool>, std::vector<size_t>> classes;
    for (size_t k = 0; k < op.uops.size(); ++k) {
      std::vector<bool> sig(static_cast<size_t>(op.iter_out * op.iter_in));
      for (int64_t i = 0; i < op.iter_out; ++i)
        for (int64_t j = 0; j < op.iter_in; ++j)
          sig[static_cast<size_t>(i * op.iter_in + j)] = at(i, j)[k];
      classes[sig].push_back(k);
    }
    auto runs = [](int64_t n, const std::function<bool(int64_t, int64_t)>& same) {
      std::vector<std::pair<int64_t, int64_t>> r;  // (first, count)
      for (int64_t x = 0; x < n; ++x)
        if (!r.empty() && same(r.back().first, x))
          ++r.back().second;
        else
          r.push_back({x, 1});
      return r;
    };
    // The classes in the order of their first micro-op (the original's order, roughly).
    std::vector<std::pair<std::vector<bool>, std::vector<size_t>>> order(classes.begin(),
                                                                         classes.end());
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.second.front() < b.second.front(); });
    for (const auto& [sig, ks] : order) {
      auto dropped_at = [&, &sig = sig](int64_t i, int64_t j) {
        return static_cast<bool>(sig[static_cast<size_t>(i * op.iter_in + j)]);
      };
      const auto irun = runs(op.iter_out, [&](int64_t a, int64_t b) {
        for (int64_t j = 0; j < op.iter_in; ++j)
          if (dropped_at(a, j) != dropped_at(b, j)) return false;
        return true;
      });
      const auto jrun = runs(op.iter_in, [&](int64_t a, int64_t b) {
        for (int64_t i = 0; i < op.iter_out; ++i)
          if (dropped_at(i, a) != dropped_at(i, b)) return false;
        return true;
      });
      for (const auto& [i0, ni] : irun)
        for (const auto& [j0, nj] : jrun) {
          if (dropped_at(i0, j0)) continue;
          Op g = op;
          g.uops.clear();
          g.iter_out = ni;
          g.iter_in = nj;
          if (ni == 1) g.dst_factor_out = g.src_factor_out = g.wgt_factor_out = 0;
          if (nj == 1) g.dst_factor_in = g.src_factor_in = g.wgt_factor_in = 0;
          for (size_t k : ks) {
            const isa::Uop& u = op.uops[k];
            g.uops.push_back({u.dst + i0 * op.dst_factor_out + j0 * op.dst_factor_in,
                              u.src + i0 * op.src_factor_out + j0 * op.src_factor_in,
                              u.wgt + i0 * op.wgt_factor_out + j0 * op.wgt_factor_in});
          }
          repl[oi].push_back(g);
        }
    }
    gain[oi] = here;
  }
  // Which rewrites to take: every distinct kernel must be resident at once (reloading kernels
  // would cost more than the dropped micro-ops save). Rewrites with the same original kernel
  // and the same replacement kernels form a group (taking part of one saves its micro-op
  // entries nowhere); the set of groups with the most iterations saved whose kernels fit
  // together (a kernel no op uses any more frees its entries) is searched exhaustively up to
  // kExhaustive groups, else taken greedily, most iterations saved per entry added first.
  std::map<std::vector<int64_t>, int> kernel_id;
  std::vector<int64_t> kernel_size;
  auto id_of = [&](const std::vector<isa::Uop>& k) {
    auto [it, fresh] = kernel_id.try_emplace(key_of(k), static_cast<int>(kernel_size.size()));
    if (fresh) kernel_size.push_back(static_cast<int64_t>(k.size()));
    return it->second;
  };
  std::vector<int64_t> base;  // kernel -> ops of `p` using it
  auto bump = [](std::vector<int64_t>& v, int id, int64_t n) {
    if (static_cast<size_t>(id) >= v.size()) v.resize(static_cast<size_t>(id) + 1, 0);
    v[static_cast<size_t>(id)] += n;
  };
  for (const Op& op : p.ops)
    if (op.kind == Op::Kind::kGemm || op.kind == Op::Kind::kAlu) bump(base, id_of(op.uops), 1);
  struct Group {
    std::vector<size_t> ops;
    int64_t gain = 0;
    std::map<int, int64_t> delta;  // kernel -> change in its users when taken
  };
  std::map<std::vector<int>, Group> by_sig;
  for (size_t oi = 0; oi < p.ops.size(); ++oi) {
    if (gain[oi] == 0) continue;
    std::vector<int> sig{id_of(p.ops[oi].uops)};
    for (const Op& g : repl[oi]) sig.push_back(id_of(g.uops));
    Group& gr = by_sig[sig];
    gr.ops.push_back(oi);
    gr.gain += gain[oi];
    gr.delta[sig[0]] -= 1;
    for (size_t k = 1; k < sig.size(); ++k) gr.delta[sig[k]] += 1;
  }
  std::vector<Group> groups;
  for (auto& [sig, gr] : by_sig) groups.push_back(std::move(gr));
  base.resize(kernel_size.size(), 0);
  // Micro-op entries with the groups in `taken` applied.
  auto entries = [&](const std::vector<bool>& taken) {
    std::vector<int64_t> c = base;
    for (size_t gi = 0; gi < groups.size(); ++gi)
      if (taken[gi])
        for (const auto& [id, n] : groups[gi].delta) c[static_cast<size_t>(id)] += n;
    int64_t e = 0;
    for (size_t id = 0; id < c.size(); ++id)
      if (c[id] > 0) e += kernel_size[id];
    return e;
  };
  constexpr size_t kExhaustive = 12;
  std::vector<bool> chosen(groups.size(), false);
  if (groups.size() <= kExhaustive) {
    int64_t best = 0, best_entries = 0;
    for (uint32_t m = 1; m < (1u << groups.size()); ++m) {
      std::vector<bool> t(groups.size());
      int64_t g = 0;
      for (size_t gi = 0; gi < groups.size(); ++gi)
        if ((t[gi] = (m >> gi) & 1u)) g += groups[gi].gain;
      if (g < best) continue;
      const int64_t e = entries(t);  // ties: the fewest entries
      if (e <= l.uop_depth && (g > best || e < best_entries))
        best = g, best_entries = e, chosen = t;
    }
  } else {
    for (;;) {
      const int64_t now = entries(chosen);
      int best = -1;
      double best_ratio = 0;
      for (size_t gi = 0; gi < groups.size(); ++gi) {
        if (chosen[gi]) continue;
        chosen[gi] = true;
        const int64_t after = entries(chosen);
        chosen[gi] = false;
        if (after > l.uop_depth) continue;
        const double ratio = static_cast<double>(groups[gi].gain) /
                             static_cast<double>(std::max<int64_t>(1, after - now));
        if (best < 0 || ratio > best_ratio) best = static_cast<int>(gi), best_ratio = ratio;
      }
      if (best < 0) break;
      chosen[static_cast<size_t>(best)] = true;
    }
  }
  std::vector<bool> take(p.ops.size(), false);
  int64_t removed = 0;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    if (chosen[gi])
      for (size_t oi : groups[gi].ops) take[oi] = true, removed += gain[oi];
  if (removed == 0) return p;
  accel::Program out;
  out.tensors = p.tensors;
  size_t count = 0;
  for (size_t oi = 0; oi < p.ops.size(); ++oi) count += take[oi] ? repl[oi].size() : 1;
  out.ops.reserve(count);  // growing a vector of operations copies their micro-ops
  for (size_t oi = 0; oi < p.ops.size(); ++oi) {
    if (!take[oi]) {
      out.ops.push_back(std::move(p.ops[oi]));
      continue;
    }
    for (Op& g : repl[oi]) out.ops.push_back(std::move(g));
  }
  if (dropped) *dropped = removed;
  return out;
}

}  // namespace weft::compiler::passes
