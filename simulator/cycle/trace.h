// A Chrome trace / Perfetto timeline of a cycle-model run: one track per module, one slice per
// instruction, stall intervals labelled with their cause, token pushes and pops as instants
// joined by flow arrows. Timestamps are cycles, written as microseconds (1 cycle = 1 us).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace weft::sim::cycle {

/// The tracks of the timeline.
enum class Track : int { kFetch = 0, kLoad = 1, kCompute = 2, kStore = 3 };

/// Collects timeline events in memory and writes them as Chrome trace JSON.
class Trace {
 public:
  /// A slice [start, end] (inclusive cycles) on a track.
  void slice(Track t, const std::string& name, uint64_t start, uint64_t end,
             nlohmann::json args = nlohmann::json::object(), const char* category = "insn");
  /// An instant event at a cycle.
  void instant(Track t, const std::string& name, uint64_t cycle, nlohmann::json args);
  /// A flow arrow from (from, t0) to (to, t1), e.g. a token push to its pop.
  void flow(Track from, uint64_t t0, Track to, uint64_t t1, const std::string& name);

  /// Number of events recorded.
  size_t size() const { return events_.size(); }
  /// The whole trace as a JSON document (with track names as metadata).
  nlohmann::json to_json() const;

 private:
  std::vector<nlohmann::json> events_;
  uint64_t next_flow_id_ = 1;
};

}  // namespace weft::sim::cycle
