// Timelines of timed runs, as the driver hands them to its users: recorded by the cycle
// backend (DeviceOptions::trace), written as Chrome trace JSON, rendered as SVG.
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

/// Renders a timeline document as an SVG picture.
inline std::string render_timeline_svg(const nlohmann::json& doc, const TimelineSvgOptions& o) {
  return sim::cycle::trace_to_svg(doc, o);
}

}  // namespace weft::driver
