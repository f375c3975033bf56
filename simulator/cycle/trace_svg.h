// Renders a timeline (the Chrome trace JSON that Trace writes) as a standalone SVG picture:
// one lane per unit, instructions coloured by kind, stalls shaded by cause, token pushes
// joined to their pops. For docs and for a quick look without a trace viewer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace weft::sim::cycle {

/// Options of the rendering.
struct SvgOptions {
  uint64_t from = 0;         // first cycle shown (must lie within the trace)
  uint64_t to = UINT64_MAX;  // last cycle shown (clipped to the trace)
  int width = 1200;          // pixels (at least 200)
  std::string title;
};

/// The SVG text of a trace document. UserError when `trace` is not such a document (naming
/// the first bad event: not an object, a field of the wrong type, a tid without a track) or
/// when the cycle window is empty or starts beyond the end of the trace.
std::string trace_to_svg(const nlohmann::json& trace, const SvgOptions& options);

}  // namespace weft::sim::cycle
