// SVG rendering of a timeline; see trace_svg.h.
#include "simulator/cycle/trace_svg.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "hardware/isa/errors.h"

namespace weft::sim::cycle {

namespace {

constexpr int kLaneHeight = 34;
constexpr int kLeft = 80;
constexpr int kTop = 40;

std::string colour_of(const std::string& name, const std::string& category) {
  if (category == "stall") {
    if (name.find("token") != std::string::npos) return "#f4a6a6";
    if (name.find("drain") != std::string::npos) return "#f7d08a";
    if (name.find("idle") != std::string::npos) return "#eeeeee";
    return "#dddddd";  // command queue empty
  }
  if (name.find("(GEMM") != std::string::npos) return "#4caf50";
  if (name.find("(ALU") != std::string::npos) return "#ff9800";
  if (name.find("(LOAD") != std::string::npos) return "#2196f3";
  if (name.find("(STORE") != std::string::npos) return "#9c27b0";
  if (name.rfind("fetch", 0) == 0) return "#90a4ae";
  return "#607d8b";
}

// "instruction 12 (LOAD INP)" -> "LOAD INP #12", so that narrow slices keep the kind.
std::string short_label(const std::string& name) {
  const size_t open = name.find(" (");
  if (name.rfind("instruction ", 0) != 0 || open == std::string::npos || name.back() != ')') {
    return name;
  }
  return name.substr(open + 2, name.size() - open - 3) + " #" + name.substr(12, open - 12);
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

}  // namespace

std::string trace_to_svg(const nlohmann::json& trace, const SvgOptions& o) {
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
    throw UserError("not a Weft timeline: expected a JSON object with a 'traceEvents' array");
  }
  std::map<int, std::string> lanes;
  uint64_t end = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
      lanes[e.value("tid", 0)] = e["args"].value("name", "?");
    }
    if (e.value("ph", "") == "X") end = std::max(end, e.value("ts", uint64_t{0}) + e.value("dur", uint64_t{0}));
  }
  if (lanes.empty() || end == 0) throw UserError("the timeline has no tracks or no events");
  const uint64_t from = std::min(o.from, end - 1);
  const uint64_t to = std::min(o.to, end);
  if (to <= from) throw UserError("empty cycle window: --from must be below --to");
  const double scale = static_cast<double>(o.width - kLeft - 20) / static_cast<double>(to - from);
  auto x_of = [&](uint64_t c) { return kLeft + (static_cast<double>(c) - from) * scale; };
  auto lane_y = [&](int tid) { return kTop + tid * kLaneHeight; };
  const int height = kTop + static_cast<int>(lanes.size()) * kLaneHeight + 70;

  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << o.width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"14\">" << escape(o.title) << " (cycles "
    << from << "-" << to << ")</text>\n";
  for (const auto& [tid, name] : lanes) {
    s << "<text x=\"6\" y=\"" << lane_y(tid) + 20 << "\">" << escape(name) << "</text>\n";
    s << "<line x1=\"" << kLeft << "\" x2=\"" << o.width - 20 << "\" y1=\"" << lane_y(tid) + kLaneHeight
      << "\" y2=\"" << lane_y(tid) + kLaneHeight << "\" stroke=\"#cccccc\"/>\n";
  }
  std::map<uint64_t, std::pair<double, double>> flow_start;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    const int tid = e.value("tid", 0);
    const uint64_t ts = e.value("ts", uint64_t{0});
    if (ph == "X") {
      const uint64_t t1 = ts + e.value("dur", uint64_t{1});
      if (t1 <= from || ts >= to) continue;
      const std::string name = e.value("name", "");
      const std::string cat = e.value("cat", "");
      const double x0 = x_of(std::max(ts, from)), x1 = x_of(std::min(t1, to));
      const bool stall = cat == "stall";
      s << "<rect x=\"" << x0 << "\" y=\"" << lane_y(tid) + (stall ? 20 : 4) << "\" width=\""
        << std::max(0.5, x1 - x0) << "\" height=\"" << (stall ? 10 : 24) << "\" fill=\""
        << colour_of(name, cat) << "\"" << (stall ? "" : " stroke=\"white\" stroke-width=\"0.3\"")
        << "><title>" << escape(name) << " [" << ts << ", " << t1 - 1 << "]</title></rect>\n";
      if (!stall && x1 - x0 > 60) {
        s << "<text x=\"" << x0 + 3 << "\" y=\"" << lane_y(tid) + 15 << "\" fill=\"white\">"
          << escape(short_label(name).substr(0, static_cast<size_t>((x1 - x0) / 6)))
          << "</text>\n";
      }
    } else if (ph == "s") {
      flow_start[e.value("id", uint64_t{0})] = {x_of(std::clamp(ts, from, to)), lane_y(tid) + 16.0};
    } else if (ph == "f") {
      auto it = flow_start.find(e.value("id", uint64_t{0}));
      if (it == flow_start.end() || ts < from || ts > to) continue;
      s << "<line x1=\"" << it->second.first << "\" y1=\"" << it->second.second << "\" x2=\""
        << x_of(ts) << "\" y2=\"" << lane_y(tid) + 16 << "\" stroke=\"#d32f2f\" stroke-width=\"0.7\" "
        << "opacity=\"0.6\"/>\n";
    }
  }
  // Legend.
  const int ly = kTop + static_cast<int>(lanes.size()) * kLaneHeight + 20;
  int lx = kLeft;
  for (const auto& [label, colour] : std::vector<std::pair<std::string, std::string>>{
           {"LOAD", "#2196f3"}, {"GEMM", "#4caf50"}, {"ALU", "#ff9800"}, {"STORE", "#9c27b0"},
           {"FINISH", "#607d8b"}, {"stall: token", "#f4a6a6"}, {"stall: drain", "#f7d08a"},
           {"stall: no command", "#dddddd"}, {"token push -> pop", "#d32f2f"}}) {
    s << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"12\" height=\"12\" fill=\"" << colour
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly + 10 << "\">" << escape(label) << "</text>\n";
    lx += 30 + static_cast<int>(label.size()) * 6;
  }
  s << "<text x=\"" << kLeft << "\" y=\"" << ly + 34 << "\" fill=\"#666666\">time in cycles; "
       "LOAD/STORE slices include their DRAM waits (hover a slice for its span)</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace weft::sim::cycle
