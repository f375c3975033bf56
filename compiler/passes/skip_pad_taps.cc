// Pass skip_pad_taps; see skip_pad_taps.h.
#include "compiler/passes/skip_pad_taps.h"

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

accel::Program skip_pad_taps(const accel::Program& p, const isa::Layout& l, int64_t* dropped) {
  if (dropped) *dropped = 0;
  std::map<int64_t, bool> pad;  // INP block -> the last load wrote padding there
  accel::Program out;
  out.tensors = p.tensors;
  int64_t removed = 0;
  for (const Op& op : p.ops) {
    if (op.kind == Op::Kind::kLoad && op.mem == isa::MemType::kInp) {
      const int64_t rows = op.y_pad0 + op.y_size + op.y_pad1;
      const int64_t cols = op.x_pad0 + op.x_size + op.x_pad1;
      for (int64_t y = 0; y < rows; ++y)
        for (int64_t x = 0; x < cols; ++x)
          pad[op.sram_base + y * cols + x] = y < op.y_pad0 || y >= op.y_pad0 + op.y_size ||
                                             x < op.x_pad0 || x >= op.x_pad0 + op.x_size;
      out.ops.push_back(op);
      continue;
    }
    if (op.kind != Op::Kind::kGemm || op.reset) {
      out.ops.push_back(op);
      continue;
    }
    auto is_pad = [&](int64_t src) {
      auto it = pad.find(src);
      return it != pad.end() && it->second;
    };
    bool any = false;
    for (int64_t i = 0; i < op.iter_out && !any; ++i)
      for (int64_t j = 0; j < op.iter_in && !any; ++j)
        for (const isa::Uop& u : op.uops)
          if (is_pad(u.src + i * op.src_factor_out + j * op.src_factor_in)) {
            any = true;
            break;
          }
    if (!any) {
      out.ops.push_back(op);
      continue;
    }
    // Which micro-ops read padding in each (i, j); the most compact form that drops them:
    // one GEMM with both loops when the set is the same for every (i, j), one per inner
    // iteration keeping the outer loop when it depends on j only, one per outer iteration
    // keeping the inner loop when it depends on i only, else one per (i, j).
    std::vector<std::vector<bool>> drop(static_cast<size_t>(op.iter_out * op.iter_in));
    for (int64_t i = 0; i < op.iter_out; ++i)
      for (int64_t j = 0; j < op.iter_in; ++j)
        for (const isa::Uop& u : op.uops) {
          const bool d = is_pad(u.src + i * op.src_factor_out + j * op.src_factor_in);
          drop[static_cast<size_t>(i * op.iter_in + j)].push_back(d);
          removed += d;
        }
    auto at = [&](int64_t i, int64_t j) -> const std::vector<bool>& {
      return drop[static_cast<size_t>(i * op.iter_in + j)];
    };
    bool by_j = true, by_i = true;
    for (int64_t i = 0; i < op.iter_out; ++i)
      for (int64_t j = 0; j < op.iter_in; ++j) {
        by_j = by_j && at(i, j) == at(0, j);
        by_i = by_i && at(i, j) == at(i, 0);
      }
    // A GEMM over loops `keep_out`/`keep_in` of the original with the others folded at (i, j).
    auto emit = [&](int64_t i, int64_t j, bool keep_out, bool keep_in) {
      Op g = op;
      g.uops.clear();
      if (!keep_out) {
        g.iter_out = 1;
        g.dst_factor_out = g.src_factor_out = g.wgt_factor_out = 0;
      }
      if (!keep_in) {
        g.iter_in = 1;
        g.dst_factor_in = g.src_factor_in = g.wgt_factor_in = 0;
      }
      const int64_t fi = keep_out ? 0 : i, fj = keep_in ? 0 : j;
      const std::vector<bool>& d = at(i, j);
      for (size_t k = 0; k < op.uops.size(); ++k) {
        if (d[k]) continue;
        const isa::Uop& u = op.uops[k];
        g.uops.push_back({u.dst + fi * op.dst_factor_out + fj * op.dst_factor_in,
                          u.src + fi * op.src_factor_out + fj * op.src_factor_in,
                          u.wgt + fi * op.wgt_factor_out + fj * op.wgt_factor_in});
      }
      if (!g.uops.empty()) out.ops.push_back(g);
    };
    if (by_i && by_j) {
      emit(0, 0, true, true);
    } else if (by_j) {
      // The original order is i outer, j inner: keeping the outer loop per j reorders the
      // iterations, which only permutes additions into the accumulator (the same sums).
      for (int64_t j = 0; j < op.iter_in; ++j) emit(0, j, true, false);
    } else if (by_i) {
      for (int64_t i = 0; i < op.iter_out; ++i) emit(i, 0, false, true);
    } else {
      for (int64_t i = 0; i < op.iter_out; ++i)
        for (int64_t j = 0; j < op.iter_in; ++j) emit(i, j, false, false);
    }
  }
  if (removed == 0) return p;
  // Every distinct kernel resident at once, or nothing changes.
  std::set<std::vector<int64_t>> kernels;
  int64_t uops = 0;
  for (const Op& op : out.ops)
    if ((op.kind == Op::Kind::kGemm || op.kind == Op::Kind::kAlu) &&
        kernels.insert(key_of(op.uops)).second)
      uops += static_cast<int64_t>(op.uops.size());
  if (uops > l.uop_depth) return p;
  if (dropped) *dropped = removed;
  return out;
}

}  // namespace weft::compiler::passes
