// Conv2d knobs for the graph's accelerator kernels; see choose_knobs.h.
#include "compiler/graph/lower/choose_knobs.h"

#include <algorithm>

#include "compiler/ops/tiling.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {

using ops::Conv2dKnobs;

bool same_knobs(const Conv2dKnobs& a, const Conv2dKnobs& b) {
  return a.tile_h == b.tile_h && a.tile_w == b.tile_w && a.tile_ic == b.tile_ic &&
         a.tile_oc == b.tile_oc && a.vthreads == b.vthreads && a.vthread_axis == b.vthread_axis &&
         a.tile_n == b.tile_n;
}

}  // namespace

bool knobs_cover_exactly(const isa::Layout& l, const ops::Conv2dShape& s, const Conv2dKnobs& k) {
  const auto& c = l.config;
  const int64_t icb = ops::ceil_div(s.ic, c.block_in()), ocb = ops::ceil_div(s.oc, c.block_out());
  const int64_t vo = k.vthread_axis == 'o' ? k.vthreads : 1,
                vh = k.vthread_axis == 'h' ? k.vthreads : 1;
  if (k.tile_ic <= 0 || k.tile_oc <= 0 || k.tile_h <= 0 || k.tile_w <= 0 || k.tile_n <= 0)
    return false;
  return ops::ceil_div(s.n, c.batch()) % k.tile_n == 0 && icb % k.tile_ic == 0 && ocb % (k.tile_oc * vo) == 0 && s.out_h() % (k.tile_h * vh) == 0 &&
         s.out_w() % k.tile_w == 0;
}

std::vector<Conv2dKnobs> exact_tilings(const isa::Layout& l, const isa::Platform& pf,
                                       const ops::Conv2dShape& s, bool residual,
                                       bool channel_shifts, size_t count) {
  count = std::max<size_t>(count, 1);
  const int64_t ocb = ops::ceil_div(s.oc, l.config.block_out());
  std::vector<Conv2dKnobs> exact;
  for (int64_t vt : {2, 1}) {
    std::vector<Conv2dKnobs> cand;
    try {
      cand = ops::conv2d_candidates(l, pf, s, vt, 100000, residual, channel_shifts);
    } catch (const UserError&) {
      continue;
    }
    for (Conv2dKnobs k : cand) {
      const int64_t vo = k.vthread_axis == 'o' ? k.vthreads : 1;
      // The candidates' tile_oc are powers of two; when the channel blocks per thread are not
      // (the fc: 1000 outputs = 63 blocks) the largest divisor at most as large covers exactly
      // (tile_oc 1 alone leaves the fc's weight stream one block at a time: 109 K cycles, 36 K
      // with 63).
      if (const int64_t per = ocb / vo;
          ocb % vo == 0 && (per & (per - 1)) != 0 && per % k.tile_oc) {
        int64_t d = std::min(k.tile_oc, per);
        while (per % d) --d;
        k.tile_oc = d;
        try {
          ops::check_conv2d_knobs(l, s, k, residual, channel_shifts);
        } catch (const UserError&) {
          continue;
        }
        if (std::any_of(exact.begin(), exact.end(),
                        [&](const Conv2dKnobs& e) { return same_knobs(e, k); }))
          continue;
      }
      if (!knobs_cover_exactly(l, s, k)) continue;
      if (exact.size() < count) exact.push_back(k);
    }
    if (exact.size() >= count) break;
  }
  return exact;
}

KnobChooser::KnobChooser(const isa::Layout& layout, const isa::Platform& platform, size_t tune,
                         KnobSource* source)
    : layout_(layout), platform_(platform), tune_(tune), source_(source) {}

KnobChoice KnobChooser::choose(const ops::Conv2dShape& s, const ops::Conv2dEpilogue& e,
                               const std::string& node) {
  if (source_)
    if (auto k = source_->recorded(s, e)) return {*k, "tuning records"};
  const std::string source = tune_ > 1
                                 ? "measured (best of " + std::to_string(tune_) + " exact tilings" +
                                       (source_ ? source_->fastest_note() : "") + ")"
                                 : "analytic chooser";
  // exact2: tile_oc may be a non-power-of-two divisor (keys of older choices are not reused).
  const std::string key = layout_.config.name + "/" + platform_.name + "/" + s.describe() +
                          (e.residual ? "/r" : "") + (e.channel_shifts ? "/pc" : "") + "/exact2/t" +
                          std::to_string(tune_);
  if (auto it = memo_.find(key); it != memo_.end()) return {it->second, source};
  const std::vector<Conv2dKnobs> exact =
      exact_tilings(layout_, platform_, s, e.residual, e.channel_shifts, tune_);
  if (exact.empty())
    throw UserError("graph lowering: no tiling of node '" + node + "' (" + s.describe() +
                    ") covers it exactly on " + layout_.config.name);
  Conv2dKnobs best = exact[0];
  if (tune_ > 1 && exact.size() > 1 && source_) best = source_->fastest(key, s, exact);
  return {memo_[key] = best, source};
}

}  // namespace weft::compiler::graph
