// Running conv2d layers for a study: choosing knobs by searching with the cycle model (with a
// cache of the choices), running a layer on an engine with a correctness check, and the
// layer's roofline on a platform. `weft bench resnet18` and `weft run conv2d` are built on it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "driver/timeline.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/ops/conv2d.h"

namespace weft::rt {

/// A named layer (batch 1; the study sets the batch per configuration).
struct LayerSpec {
  std::string name;
  compiler::ops::Conv2dShape shape;
};

/// ResNet-18's convolution layers C1-C12 (He et al. 2016, as in the VTA paper's study).
const std::vector<LayerSpec>& resnet18_layers();

/// Knob choices remembered across runs, in a JSON file keyed by configuration, platform,
/// shape and thread count. An unreadable cache is ignored (and rewritten).
class KnobCache {
 public:
  explicit KnobCache(std::string path);
  std::optional<compiler::ops::Conv2dKnobs> find(const std::string& key) const;
  void put(const std::string& key, const compiler::ops::Conv2dKnobs& k);
  /// Writes the file (creating its directory); a failure is reported once, not fatal.
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

/// The roofline of a layer on a platform: GEMM cycles of the channel-padded layer against the
/// cycles its compulsory DRAM traffic (each packed tensor moved once) takes on the bus.
struct Roofline {
  double compute_cycles = 0, dram_bytes = 0, memory_cycles = 0, bound_cycles = 0;
  double bound_utilization = 0;  // compute / bound
  double intensity = 0;          // useful ops per compulsory byte
  double peak_gops = 0, bandwidth_gbs = 0;
  nlohmann::ordered_json to_json() const;
};
Roofline conv2d_roofline(const isa::Layout& l, const isa::Platform& p,
                         const compiler::ops::Conv2dShape& s);

/// One run of a layer.
struct LayerRun {
  compiler::ops::Conv2dKnobs knobs;
  uint64_t instructions = 0;
  uint64_t cycles = 0;     // 0 on the functional engine
  double utilization = 0;  // non-reset GEMM micro-ops per cycle
  double gops = 0;         // useful ops at the platform clock
  bool checked = false, correct = false;
  int64_t mismatches = 0;
  nlohmann::ordered_json details;  // the device's run details
};

/// Compiles and runs a layer on `data`; checks the output against `expect` (the CPU
/// reference, computed once by the caller for all the runs of a layer) when given. `trace`
/// records a timeline on the cycle engine.
LayerRun run_layer(const isa::Layout& l, const isa::Platform& p, const std::string& engine,
                   const compiler::ops::Conv2dShape& s, const compiler::ops::Conv2dKnobs& k,
                   const compiler::ops::Conv2dEpilogue& e, const Conv2dData& data,
                   const std::vector<int8_t>* expect, driver::Timeline* trace = nullptr);

/// What a knob search did: the winner, and every candidate that could not be compiled or run,
/// with its error. A rejected candidate is skipped, never fatal while another one works.
struct KnobSearch {
  compiler::ops::Conv2dKnobs best;
  uint64_t best_cycles = 0;  // 0 when the choice came from the cache or nothing was measured
  bool cached = false;
  size_t candidates = 0;     // proposed by the chooser
  struct Rejected {
    compiler::ops::Conv2dKnobs knobs;
    std::string error;
  };
  std::vector<Rejected> rejected;
  /// {"candidates", "measured", "rejected", "rejections": [{knobs, error}], "best_cycles", "cached"}.
  nlohmann::ordered_json to_json() const;
};

/// Runs each candidate on the cycle model and keeps the one with the fewest cycles. A candidate
/// that fails to compile or run (a UserError) is recorded in `rejected` and skipped; only when
/// every one fails is it a UserError. A single candidate is returned without a run.
KnobSearch measure_knobs(const isa::Layout& l, const isa::Platform& p,
                         const compiler::ops::Conv2dShape& s,
                         const std::vector<compiler::ops::Conv2dKnobs>& candidates,
                         const std::function<void(const std::string&)>& note = {});

/// Chooses knobs for `vthreads` threads: the cached choice, else the best of the analytic
/// chooser's first `candidates` measured by measure_knobs (then cached). `note` hears about
/// each candidate tried.
KnobSearch search_knobs(const isa::Layout& l, const isa::Platform& p,
                        const compiler::ops::Conv2dShape& s, int64_t vthreads, size_t candidates,
                        KnobCache* cache, const std::function<void(const std::string&)>& note = {});

/// An SVG roofline: the platform's roof and each layer with and without latency hiding.
struct RooflinePoint {
  std::string name;
  double intensity, gops_hidden, gops_serial;
};
std::string roofline_svg(const Roofline& platform_roof, const std::vector<RooflinePoint>& points,
                         const std::string& title);

}  // namespace weft::rt
