// Renders a timeline (Chrome trace JSON) as a standalone SVG picture, one lane per track:
// the cycle engine's (Trace: times in cycles, instructions coloured by kind, stalls shaded by
// cause, token pushes joined to their pops) and a network run's (RunReport::timeline: times
// in microseconds, one box per node on the accelerator's or the CPU's lane, coloured by op).
// For docs, notebooks and a quick look without a trace viewer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace weft::sim::cycle {

/// The unit of a timeline's times ("ts", "dur"). A document names it in
/// otherData.time_unit ("cycle" or "us"); one that does not is in cycles.
enum class TimeUnit { kCycle, kMicrosecond };

/// Marks `doc` (a trace document) as timed in `unit`.
void set_time_unit(nlohmann::json& doc, TimeUnit unit);

/// The unit `doc` names (kCycle when it names none); UserError for any other name.
TimeUnit time_unit_of(const nlohmann::json& doc);

/// Options of the rendering.
struct SvgOptions {
  uint64_t from = 0;         // first time shown, in the timeline's unit (must lie within it)
  uint64_t to = UINT64_MAX;  // last time shown (clipped to the timeline)
  int width = 1200;          // pixels (at least 200)
  std::string title;
  std::optional<TimeUnit> unit;  // the times' unit; by default the document's (time_unit_of)
};

/// The SVG text of a trace document. UserError when `trace` is not such a document (naming
/// the first bad event: not an object, a field of the wrong type, a time that is not a whole
/// cycle count or not a number of microseconds, a tid without a track) or when the window is
/// empty or starts beyond the end of the timeline.
std::string trace_to_svg(const nlohmann::json& trace, const SvgOptions& options);

}  // namespace weft::sim::cycle
