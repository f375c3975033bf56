// Pass residual_init; see residual_init.h.
#include "compiler/passes/residual_init.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace weft::compiler::passes {

namespace {

using accel::Op;

// Every (dst, src) pair of a GEMM or ALU operation's iterations, in order.
std::vector<std::pair<int64_t, int64_t>> iterations(const Op& op) {
  std::vector<std::pair<int64_t, int64_t>> v;
  for (int64_t i = 0; i < op.iter_out; ++i)
    for (int64_t j = 0; j < op.iter_in; ++j)
      for (const isa::Uop& u : op.uops)
        v.push_back({u.dst + i * op.dst_factor_out + j * op.dst_factor_in,
                     u.src + i * op.src_factor_out + j * op.src_factor_in});
  return v;
}

bool is_init(const Op& op) {
  return (op.kind == Op::Kind::kGemm && op.reset) ||
         (op.kind == Op::Kind::kLoad && module_of(op) == isa::Module::kCompute);
}

struct Rewrite {
  size_t reset = 0, add = 0;
  std::vector<size_t> loads;
  int64_t delta = 0, shift = 0;
};

}  // namespace

bool residual_init_cannot_wrap(int64_t products, int64_t bias_max, int shift) {
  return 128 * 128 * products + bias_max + (int64_t{128} << shift) < (int64_t{1} << 31);
}

accel::Program residual_init(accel::Program p, const ir::Buffer& residual, int* rewritten) {
  const size_t n = p.ops.size();
  std::vector<std::vector<int64_t>> wrows(n), rrows(n);  // accumulator rows written / read
  for (size_t i = 0; i < n; ++i) {
    const accel::Access acc = accel::accesses(p.ops[i]);
    wrows[i] = accel::acc_rows(acc.writes);
    rrows[i] = accel::acc_rows(acc.reads);
  }
  // Per accumulator row: the operation that last initialised it, its last writer and the
  // writers since the initialisation (tables indexed by row: every operation's rows pass
  // through them, and maps cost a third of the pass).
  int64_t top = 0;
  for (size_t i = 0; i < n; ++i)
    for (const auto* rows : {&wrows[i], &rrows[i]})
      if (!rows->empty()) top = std::max(top, rows->back() + 1);
  constexpr size_t kNo = SIZE_MAX;
  std::vector<size_t> last_init(static_cast<size_t>(top), kNo), last_writer(last_init);
  std::vector<std::vector<size_t>> since(static_cast<size_t>(top));
  auto at = [&](const std::vector<size_t>& table, int64_t row) {
    return row >= 0 && row < top ? table[static_cast<size_t>(row)] : kNo;
  };
  std::vector<Rewrite> found;
  for (size_t i = 0; i < n; ++i) {
    const Op& op = p.ops[i];
    if (op.kind == Op::Kind::kAlu && op.alu_op == isa::AluOp::kAdd && !op.use_imm) {
      [&] {
        const auto pairs = iterations(op);
        if (pairs.empty()) return;
        Rewrite r;
        r.add = i;
        r.delta = pairs[0].second - pairs[0].first;
        std::set<int64_t> dst, src;
        for (const auto& [d, s] : pairs) {
          if (s - d != r.delta || !dst.insert(d).second) return;  // a row twice: not a tile add
          src.insert(s);
        }
        // The sources: rows of residual loads, nothing else in them.
        std::set<size_t> loads;
        for (int64_t s : src) {
          const size_t w = at(last_writer, s);
          if (w == kNo) return;
          const Op& l = p.ops[w];
          if (l.kind != Op::Kind::kLoad || l.mem != isa::MemType::kAcc8Bit || l.tensor != residual)
            return;
          loads.insert(w);
        }
        std::set<int64_t> loaded;
        for (size_t l : loads) {
          const auto rows = wrows[l];
          loaded.insert(rows.begin(), rows.end());
        }
        if (loaded != src) return;
        // The destinations: the rows of one reset, then accumulation, then right shifts.
        const size_t first = at(last_init, *dst.begin());
        if (first == kNo) return;
        r.reset = first;
        const Op& g = p.ops[r.reset];
        if (g.kind != Op::Kind::kGemm || !g.reset ||
            !std::equal(wrows[r.reset].begin(), wrows[r.reset].end(), dst.begin(), dst.end()))
          return;
        std::set<size_t> chain, checked;
        for (int64_t d : dst) {
          if (at(last_init, d) != r.reset) return;
          int64_t shift = 0;
          for (size_t w : since[static_cast<size_t>(d)]) {
            const Op& c = p.ops[w];
            const bool shr = c.kind == Op::Kind::kAlu && c.alu_op == isa::AluOp::kShr && c.use_imm &&
                             c.imm > 0;
            const bool adds = (c.kind == Op::Kind::kGemm && !c.reset) ||
                              (c.kind == Op::Kind::kAlu && c.alu_op == isa::AluOp::kAdd);
            if (shr) {
              shift += c.imm;
            } else if (!adds || shift > 0) {
              return;  // not (adds)* (shifts)+
            }
            if (checked.insert(w).second &&
                !std::includes(dst.begin(), dst.end(), wrows[w].begin(), wrows[w].end()))
              return;  // an operation over these rows and others
            chain.insert(w);
          }
          if (shift == 0 || shift > 31 || (d != *dst.begin() && shift != r.shift)) return;
          r.shift = shift;
        }
        // Between the reset and the ADD nothing else reads the destination rows; between each
        // load and the ADD nothing else reads its rows, and after the ADD nothing reads them
        // before they are written again.
        for (size_t j = r.reset + 1; j < i; ++j) {
          if (chain.count(j) || loads.count(j)) continue;
          for (int64_t d : rrows[j])
            if (dst.count(d) || src.count(d)) return;
        }
        std::set<int64_t> live = src;
        for (size_t j = i + 1; j < n && !live.empty(); ++j) {
          for (int64_t d : rrows[j])
            if (live.count(d)) return;
          for (int64_t d : wrows[j]) live.erase(d);
        }
        r.loads.assign(loads.begin(), loads.end());
        found.push_back(r);
      }();
    }
    // Track the rows this operation writes.
    for (int64_t d : wrows[i]) {
      if (d < 0) continue;  // (no accumulator row is negative; a malformed program's is ignored)
      const auto row = static_cast<size_t>(d);
      last_writer[row] = i;
      if (is_init(op)) {
        last_init[row] = i;
        since[row].clear();
      } else {
        since[row].push_back(i);
      }
    }
  }
  // Apply: at each reset, the residual loads into the output rows and the left shift; the
  // loads' old places and the ADDs go.
  std::map<size_t, const Rewrite*> at_reset;
  std::set<size_t> drop;
  for (const Rewrite& r : found) {
    if (at_reset.count(r.reset)) continue;
    bool taken = false;
    for (size_t l : r.loads) taken = taken || drop.count(l);
    if (taken || drop.count(r.add)) continue;
    at_reset[r.reset] = &r;
    drop.insert(r.add);
    drop.insert(r.loads.begin(), r.loads.end());
  }
  accel::Program out;
  out.tensors = p.tensors;
  out.ops.reserve(n + found.size());  // growing a vector of operations copies their micro-ops
  for (size_t i = 0; i < n; ++i) {
    if (drop.count(i)) continue;
    auto it = at_reset.find(i);
    if (it == at_reset.end()) {
      out.ops.push_back(std::move(p.ops[i]));  // read again only when dropped or rewritten
      continue;
    }
    const Rewrite& r = *it->second;
    for (size_t l : r.loads) {
      Op load = p.ops[l];
      load.sram_base -= r.delta;
      out.ops.push_back(load);
    }
    const Op& g = p.ops[i];
    // Left shifts: SHR reads its amount as a signed 5-bit number, -16 at most per instruction.
    for (int64_t left = r.shift; left > 0; left -= 16) {
      Op shl;
      shl.kind = Op::Kind::kAlu;
      shl.module = g.module;
      shl.alu_op = isa::AluOp::kShr;
      shl.use_imm = true;
      shl.imm = -std::min<int64_t>(left, 16);
      shl.uops = g.uops;
      for (isa::Uop& u : shl.uops) {
        u.src = u.dst;
        u.wgt = 0;
      }
      shl.iter_out = g.iter_out;
      shl.iter_in = g.iter_in;
      shl.dst_factor_out = shl.src_factor_out = g.dst_factor_out;
      shl.dst_factor_in = shl.src_factor_in = g.dst_factor_in;
      out.ops.push_back(shl);
    }
  }
  if (rewritten) *rewritten = static_cast<int>(at_reset.size());
  return out;
}

}  // namespace weft::compiler::passes
