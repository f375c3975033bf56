// Timelines of timed runs, as the driver hands them to its users: recorded by the cycle
// backend (DeviceOptions::trace), written as Chrome trace JSON, rendered as SVG (the cycle
// engine's in cycles, a network run's in microseconds: TimelineUnit).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/cycle/trace.h"
#include "simulator/cycle/trace_svg.h"

namespace weft::driver {

/// A recorded timeline (Chrome trace / Perfetto JSON via to_json()).
using Timeline = sim::cycle::Trace;
/// Options of render_timeline_svg.
using TimelineSvgOptions = sim::cycle::SvgOptions;
/// The unit of a timeline's times, which a document names (set_timeline_unit).
using TimelineUnit = sim::cycle::TimeUnit;

/// Marks a timeline document as timed in `unit` (one without a mark is in cycles).
inline void set_timeline_unit(nlohmann::json& doc, TimelineUnit unit) {
  sim::cycle::set_time_unit(doc, unit);
}

/// Renders a timeline document as an SVG picture, in the unit it names unless `o` names one.
inline std::string render_timeline_svg(const nlohmann::json& doc, const TimelineSvgOptions& o) {
  return sim::cycle::trace_to_svg(doc, o);
}

}  // namespace weft::driver
