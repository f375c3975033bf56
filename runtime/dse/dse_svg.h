// The picture of a sweep: one panel per front (latency against MACs per cycle or DSP, against
// BRAM36 or LUT, against energy), every point that ran in grey, the panel's Pareto front in
// red, joined and labelled. Standalone SVG, for docs and a quick look.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace weft::rt::dse {

/// The SVG text of a summary (dse_report.h: dse_summary). `title` heads the picture.
std::string dse_svg(const nlohmann::ordered_json& summary, const std::string& title);

}  // namespace weft::rt::dse
