// The runtime's knob source for the graph lowering; see tuned_knobs.h.
#include "runtime/tune/tuned_knobs.h"

#include "compiler/graph/lower/choose_knobs.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"

namespace weft::rt::tune {

std::optional<compiler::ops::Conv2dKnobs> exact_recorded_knobs(
    const isa::Layout& l, const isa::Platform& pf, const compiler::ops::Conv2dShape& s,
    const compiler::ops::Conv2dEpilogue& e, const std::string& db_path) {
  std::optional<compiler::ops::Conv2dKnobs> k;
  try {
    k = recorded_conv2d_knobs(l.config.name, pf.name, s, db_path);
  } catch (const UserError&) {
    // A corrupt records file is the user's error: looking the record up again rethrows it.
    // Otherwise the record's trace does not replay in this shape's space: not a schedule.
    (void)lookup_best(conv2d_workload(s), accel_target(l.config.name, pf.name), db_path);
    return std::nullopt;
  }
  if (!k || !compiler::graph::knobs_cover_exactly(l, s, *k)) return std::nullopt;
  try {
    (void)compiler::ops::make_conv2d(l, s, *k, e);  // fits the buffers with this epilogue
  } catch (const UserError&) {
    return std::nullopt;
  }
  return k;
}

TunedKnobs::TunedKnobs(const isa::Layout& layout, const isa::Platform& platform, Options options)
    : layout_(layout), platform_(platform), options_(std::move(options)) {
  if (!options_.knob_cache.empty()) cache_ = std::make_unique<KnobCache>(options_.knob_cache);
}

std::optional<compiler::ops::Conv2dKnobs> TunedKnobs::recorded(
    const compiler::ops::Conv2dShape& s, const compiler::ops::Conv2dEpilogue& e) {
  if (!options_.use_records) return std::nullopt;
  return exact_recorded_knobs(layout_, platform_, s, e, options_.tune_db);
}

compiler::ops::Conv2dKnobs TunedKnobs::fastest(
    const std::string& key, const compiler::ops::Conv2dShape& s,
    const std::vector<compiler::ops::Conv2dKnobs>& candidates) {
  if (cache_)
    if (auto k = cache_->find(key)) return *k;
  const compiler::ops::Conv2dKnobs best = measure_knobs(layout_, platform_, s, candidates).best;
  if (cache_) {
    cache_->put(key, best);
    cache_->save();
  }
  return best;
}

}  // namespace weft::rt::tune
