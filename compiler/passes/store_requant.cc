// Pass store_requant; see store_requant.h.
#include "compiler/passes/store_requant.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace weft::compiler::passes {

namespace {

using accel::Op;

bool is_clamp(const Op& op) {
  return op.kind == Op::Kind::kAlu && op.use_imm &&
         (op.alu_op == isa::AluOp::kMin || op.alu_op == isa::AluOp::kMax);
}
bool is_shift(const Op& op) {
  return op.kind == Op::Kind::kAlu && op.use_imm && op.alu_op == isa::AluOp::kShr && op.imm > 0;
}

// What a STORE's rows would fold: the ALU instructions and the requantization they make.
struct Fold {
  std::vector<size_t> chain;  // sorted
  isa::StoreRequant rq;
};

}  // namespace

accel::Program store_requant(const accel::Program& p, int* folded) {
  const size_t n = p.ops.size();
  std::vector<std::vector<int64_t>> rrows(n), wrows(n);
  int64_t max_row = -1;
  for (size_t i = 0; i < n; ++i) {
    const accel::Access a = accel::accesses(p.ops[i]);
    rrows[i] = accel::acc_rows(a.reads);
    wrows[i] = accel::acc_rows(a.writes);
    for (const auto* rows : {&rrows[i], &wrows[i]})
      if (!rows->empty()) max_row = std::max(max_row, rows->back());
  }
  // Per accumulator row: the operations that read or write it, in order.
  std::vector<std::vector<size_t>> touch(static_cast<size_t>(max_row + 1));
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> rows;
    std::set_union(rrows[i].begin(), rrows[i].end(), wrows[i].begin(), wrows[i].end(),
                   std::back_inserter(rows));
    for (int64_t d : rows) touch[static_cast<size_t>(d)].push_back(i);
  }
  auto reads = [&](size_t j, int64_t d) {
    return std::binary_search(rrows[j].begin(), rrows[j].end(), d);
  };

  // Each STORE's fold, where its rows have one.
  std::map<size_t, Fold> folds;
  for (size_t i = 0; i < n; ++i) {
    const Op& st = p.ops[i];
    if (st.kind != Op::Kind::kStore || st.requant.on || rrows[i].empty()) continue;
    bool ok = true;
    Fold f;
    for (size_t r = 0; r < rrows[i].size() && ok; ++r) {
      const auto& t = touch[static_cast<size_t>(rrows[i][r])];
      const auto at = std::lower_bound(t.begin(), t.end(), i);
      // Backwards from the STORE: clamps (one MAX and one MIN), then shifts.
      std::vector<size_t> chain;
      int64_t shift = 0;
      std::optional<int64_t> lo, hi;
      for (auto it = at; it != t.begin();) {
        const size_t j = *--it;
        const Op& op = p.ops[j];
        if (is_clamp(op) && shift == 0) {
          auto& bound = op.alu_op == isa::AluOp::kMax ? lo : hi;
          if (bound) break;
          bound = op.imm;
        } else if (is_shift(op) && lo && hi) {
          shift += op.imm;
        } else {
          break;
        }
        chain.push_back(j);
      }
      // After the STORE the row is written before it is read again.
      if (at + 1 != t.end() && reads(*(at + 1), rrows[i][r])) ok = false;
      if (!lo || !hi || (*lo != 0 && *lo != -128) || *hi < *lo || *hi > 127 || shift > 31) {
        ok = false;
        break;
      }
      std::sort(chain.begin(), chain.end());
      const isa::StoreRequant rq{true, static_cast<int>(shift), static_cast<int>(*lo),
                                 static_cast<int>(*hi)};
      if (r == 0) {
        f = Fold{chain, rq};
      } else if (chain != f.chain || rq != f.rq) {
        ok = false;
      }
    }
    if (ok) folds[i] = f;
  }
  // The STOREs each folded instruction serves; an instruction is dropped only when every row
  // it writes is read by a folding STORE with the same instructions.
  std::map<size_t, std::vector<size_t>> served;
  for (const auto& [s, f] : folds)
    for (size_t c : f.chain) served[c].push_back(s);
  std::set<size_t> bad;  // STOREs that cannot fold after all
  for (const auto& [c, stores] : served) {
    std::set<int64_t> covered;
    for (size_t s : stores) covered.insert(rrows[s].begin(), rrows[s].end());
    const bool whole = std::includes(covered.begin(), covered.end(), wrows[c].begin(),
                                     wrows[c].end());
    if (!whole) bad.insert(stores.begin(), stores.end());
  }
  // Taking one STORE out can strand another that shares its instructions: repeat.
  for (bool changed = !bad.empty(); changed;) {
    changed = false;
    for (const auto& [c, stores] : served) {
      const bool any = std::any_of(stores.begin(), stores.end(),
                                   [&](size_t s) { return bad.count(s) != 0; });
      if (!any) continue;
      for (size_t s : stores) changed = bad.insert(s).second || changed;
    }
  }
  std::set<size_t> drop;
  accel::Program out;
  out.tensors = p.tensors;
  for (const auto& [s, f] : folds)
    if (!bad.count(s)) drop.insert(f.chain.begin(), f.chain.end());
  for (size_t i = 0; i < n; ++i) {
    if (drop.count(i)) continue;
    out.ops.push_back(p.ops[i]);
    auto it = folds.find(i);
    if (it != folds.end() && !bad.count(i)) out.ops.back().requant = it->second.rq;
  }
  if (folded) *folded = static_cast<int>(drop.size());
  return out;
}

}  // namespace weft::compiler::passes
