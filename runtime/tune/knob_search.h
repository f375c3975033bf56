// Choosing conv2d knobs by measuring them on the cycle model, and remembering the choices in a
// JSON file across runs. The graph executor's knob source (runtime/tune/tuned_knobs.h) and
// the conv2d study (runtime/bench/conv2d_study.h: `weft bench`, `weft run conv2d --search`)
// measure through here; `weft tune` has its own search (search.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::rt {

/// Knob choices remembered across runs, in a JSON file keyed by configuration, platform,
/// shape and thread count. An unreadable cache is ignored (and rewritten).
class KnobCache {
 public:
  explicit KnobCache(std::string path);
  std::optional<compiler::ops::Conv2dKnobs> find(const std::string& key) const;
  void put(const std::string& key, const compiler::ops::Conv2dKnobs& k);
  /// Writes the file (creating its directory); a failure is reported, not fatal.
  void save() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  nlohmann::json entries_ = nlohmann::json::object();
  mutable bool warned_ = false;  // a cache that cannot be written is said once, not per layer
};

/// Knobs as JSON (results, the knob cache).
nlohmann::ordered_json knobs_to_json(const compiler::ops::Conv2dKnobs& k);

/// The cache key of a choice.
std::string knob_key(const isa::Layout& l, const isa::Platform& p,
                     const compiler::ops::Conv2dShape& s, int64_t vthreads);

/// Default cache file: $XDG_CACHE_HOME/weft/conv2d_knobs.json (or ~/.cache/...).
std::string default_knob_cache_path();

/// What a knob search did: the winner, and every candidate that could not be compiled or run,
/// with its error. A rejected candidate is skipped, never fatal while another one works.
struct KnobSearch {
  compiler::ops::Conv2dKnobs best;
  uint64_t best_cycles = 0;  // 0 when the choice came from the cache or nothing was measured
  bool cached = false;
  size_t candidates = 0;  // proposed by the chooser
  struct Rejected {
    compiler::ops::Conv2dKnobs knobs;
    std::string error;
  };
  std::vector<Rejected> rejected;
  /// {"candidates", "measured", "rejected", "rejections": [{knobs, error}], "best_cycles",
  /// "cached"}.
  nlohmann::ordered_json to_json() const;
};

/// Runs each candidate on the cycle model and keeps the one with the fewest cycles. A candidate
/// that fails to compile or run (a UserError) is recorded in `rejected` and skipped; only when
/// every one fails is it a UserError. A single candidate is returned without a run.
KnobSearch measure_knobs(const isa::Layout& l, const isa::Platform& p,
                         const compiler::ops::Conv2dShape& s,
                         const std::vector<compiler::ops::Conv2dKnobs>& candidates,
                         const std::function<void(const std::string&)>& note = {});

}  // namespace weft::rt
