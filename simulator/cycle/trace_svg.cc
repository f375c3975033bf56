// SVG rendering of a timeline; see trace_svg.h.
#include "simulator/cycle/trace_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

constexpr uint64_t kMaxCycle = uint64_t{1} << 53;  // exact as a double; ts + dur cannot wrap
constexpr size_t kMaxLanes = 1000;
constexpr const char* kUnitKey = "time_unit";  // in the document's otherData

// A time as text: whole cycles, or microseconds to the nanosecond without trailing zeros.
std::string time_text(double t, TimeUnit unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, unit == TimeUnit::kCycle ? "%.0f" : "%.3f", t);
  std::string s = buf;
  if (unit == TimeUnit::kMicrosecond) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// Colours of a network's ops, in the order they first appear.
constexpr const char* kOpPalette[] = {"#4caf50", "#2196f3", "#ff9800", "#9c27b0", "#009688",
                                      "#e91e63", "#795548", "#3f51b5", "#cddc39", "#607d8b"};

[[noreturn]] void bad_event(size_t i, const std::string& what) {
  throw UserError("not a Weft timeline: traceEvents[" + std::to_string(i) + "] " + what);
}

// A string field ("" when absent); UserError naming the event when it is not a string.
std::string string_field(const nlohmann::json& e, size_t i, const char* key) {
  const auto it = e.find(key);
  if (it == e.end()) return "";
  if (!it->is_string()) bad_event(i, std::string("field '") + key + "' is not a string");
  return it->get<std::string>();
}

// A time (`absent` when missing); UserError unless it is a cycle count (an integer 0..2^53)
// or a number of microseconds (0..2^53), as `unit` says.
double time_field(const nlohmann::json& e, size_t i, const char* key, double absent,
                  TimeUnit unit) {
  const auto it = e.find(key);
  if (it == e.end()) return absent;
  if (unit == TimeUnit::kCycle) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > kMaxCycle) {
      bad_event(i, std::string("field '") + key + "' = " + it->dump() +
                       " is not a cycle count (an integer 0..2^53)");
    }
    return static_cast<double>(it->get<uint64_t>());
  }
  const double v = it->is_number() ? it->get<double>() : -1;
  if (!std::isfinite(v) || v < 0 || v > static_cast<double>(kMaxCycle)) {
    bad_event(i, std::string("field '") + key + "' = " + it->dump() +
                     " is not a time in microseconds (a number 0..2^53)");
  }
  return v;
}

// The required integer field "tid".
int64_t tid_field(const nlohmann::json& e, size_t i) {
  const auto it = e.find("tid");
  if (it == e.end()) bad_event(i, "has no 'tid'");
  if (!it->is_number_integer() ||
      (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
    bad_event(i, "field 'tid' = " + it->dump() + " is not an integer");
  }
  return it->get<int64_t>();
}

// One drawn event, its fields checked.
struct Event {
  std::string ph, name, cat, id;
  int64_t tid = 0;
  int lane = 0;  // index into the tracks, in tid order
  double ts = 0, dur = 1;
};

// trace_to_svg without the conversion of JSON exceptions, its times in `unit`.
std::string render(const nlohmann::json& trace, const SvgOptions& o, TimeUnit unit) {
  const bool cycles = unit == TimeUnit::kCycle;
  const auto events_it = trace.is_object() ? trace.find("traceEvents") : trace.end();
  if (!trace.is_object() || events_it == trace.end() || !events_it->is_array()) {
    throw UserError("not a Weft timeline: expected a JSON object with a 'traceEvents' array");
  }
  if (o.width < kLeft + 120) {
    throw UserError("the picture must be at least " + std::to_string(kLeft + 120) + " pixels wide");
  }
  // Check every field before drawing anything: tracks first, then the drawn events.
  std::map<int64_t, std::string> tracks;  // tid -> name
  std::vector<Event> drawn;
  double end = 0;
  std::vector<std::pair<std::string, std::string>> op_colours;  // microseconds: op -> colour
  const nlohmann::json& events = *events_it;
  for (size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    if (!e.is_object()) bad_event(i, "is not a JSON object");
    Event ev;
    ev.ph = string_field(e, i, "ph");
    ev.name = string_field(e, i, "name");
    if (ev.ph == "M" && ev.name == "thread_name") {
      const int64_t tid = tid_field(e, i);
      const auto args = e.find("args");
      if (args == e.end() || !args->is_object()) bad_event(i, "(thread_name) has no 'args' object");
      const std::string name = string_field(*args, i, "name");
      tracks[tid] = name.empty() ? "?" : name;
      if (tracks.size() > kMaxLanes) {
        throw UserError("not a Weft timeline: more than " + std::to_string(kMaxLanes) + " tracks");
      }
      continue;
    }
    if (ev.ph != "X" && ev.ph != "s" && ev.ph != "f") continue;
    ev.cat = string_field(e, i, "cat");
    ev.ts = time_field(e, i, "ts", 0, unit);
    if (ev.ph == "X") {
      ev.dur = time_field(e, i, "dur", cycles ? 1 : 0, unit);
      end = std::max(end, ev.ts + ev.dur);
      const auto seen = [&](const auto& oc) { return oc.first == ev.cat; };
      if (!cycles && std::none_of(op_colours.begin(), op_colours.end(), seen)) {
        op_colours.emplace_back(ev.cat, kOpPalette[op_colours.size() % std::size(kOpPalette)]);
      }
    } else {
      const auto id = e.find("id");
      if (id == e.end() || !(id->is_number_integer() || id->is_string())) {
        bad_event(i, "(a flow event) has no integer or string 'id'");
      }
      ev.id = id->dump();
    }
    ev.tid = tid_field(e, i);
    drawn.push_back(std::move(ev));
  }
  if (tracks.empty() || end == 0) throw UserError("the timeline has no tracks or no events");
  std::map<int64_t, int> lane_of;
  for (const auto& [tid, name] : tracks) lane_of.emplace(tid, static_cast<int>(lane_of.size()));
  for (Event& ev : drawn) {
    const auto it = lane_of.find(ev.tid);
    if (it == lane_of.end()) {
      throw UserError("not a Weft timeline: an event of tid " + std::to_string(ev.tid) +
                      " has no track (no thread_name event names it)");
    }
    ev.lane = it->second;
  }
  const double from = static_cast<double>(o.from);
  if (from >= end) {
    throw UserError("--from " + std::to_string(o.from) + " is beyond the end of the timeline " +
                    (cycles ? "(its last cycle is " + time_text(end - 1, unit) + ")"
                            : "(it ends at " + time_text(end, unit) + " us)"));
  }
  const double to = std::min(static_cast<double>(o.to), end);
  if (to <= from) {
    throw UserError(std::string("empty ") + (cycles ? "cycle" : "time") +
                    " window: --from must be below --to");
  }
  const double scale = static_cast<double>(o.width - kLeft - 20) / (to - from);
  auto x_of = [&](double t) { return kLeft + (t - from) * scale; };
  auto colour = [&](const Event& e) {
    if (cycles) return colour_of(e.name, e.cat);
    const auto seen = [&](const auto& oc) { return oc.first == e.cat; };
    return std::find_if(op_colours.begin(), op_colours.end(), seen)->second;
  };
  auto lane_y = [&](int lane) { return kTop + lane * kLaneHeight; };
  const std::vector<std::pair<std::string, std::string>> instruction_kinds{
      {"LOAD", "#2196f3"},
      {"GEMM", "#4caf50"},
      {"ALU", "#ff9800"},
      {"STORE", "#9c27b0"},
      {"FINISH", "#607d8b"},
      {"stall: token", "#f4a6a6"},
      {"stall: drain", "#f7d08a"},
      {"stall: no command", "#dddddd"},
      {"token push -> pop", "#d32f2f"}};
  const auto& legend = cycles ? instruction_kinds : op_colours;
  // The legend wraps into rows of the picture's width; each entry's place, in rows of 18.
  auto entry_width = [](const std::string& label) {
    return 30 + static_cast<int>(label.size()) * 6;
  };
  std::vector<std::pair<int, int>> legend_at;  // (x, row)
  int legend_x = kLeft, legend_row = 0;
  for (const auto& entry : legend) {
    if (legend_x > kLeft && legend_x + entry_width(entry.first) > o.width - 20) {
      legend_x = kLeft;
      ++legend_row;
    }
    legend_at.emplace_back(legend_x, legend_row);
    legend_x += entry_width(entry.first);
  }
  const int legend_rows = legend_at.empty() ? 1 : legend_at.back().second + 1;
  const int height = kTop + static_cast<int>(tracks.size()) * kLaneHeight + 52 + 18 * legend_rows;

  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << o.width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"14\">" << escape(o.title) << " ("
    << (cycles ? "cycles " : "µs ") << time_text(from, unit) << "-" << time_text(to, unit)
    << ")</text>\n";
  for (const auto& [tid, name] : tracks) {
    const int y = lane_y(lane_of.at(tid));
    s << "<text x=\"6\" y=\"" << y + 20 << "\">" << escape(name) << "</text>\n";
    s << "<line x1=\"" << kLeft << "\" x2=\"" << o.width - 20 << "\" y1=\"" << y + kLaneHeight
      << "\" y2=\"" << y + kLaneHeight << "\" stroke=\"#cccccc\"/>\n";
  }
  std::map<std::string, std::pair<double, double>> flow_start;
  for (const Event& e : drawn) {
    const std::string& ph = e.ph;
    const int lane = e.lane;
    const double ts = e.ts;
    if (ph == "X") {
      const double t1 = ts + e.dur;
      // A zero-length box (a step too short for the clock) is still drawn, a hairline.
      if (e.dur > 0 ? (t1 <= from || ts >= to) : (ts < from || ts > to)) continue;
      const std::string& name = e.name;
      const std::string& cat = e.cat;
      const double x0 = x_of(std::max(ts, from)), x1 = x_of(std::min(t1, to));
      const bool stall = cycles && cat == "stall";
      const std::string span =
          cycles ? " [" + time_text(ts, unit) + ", " + time_text(t1 - 1, unit) + "]"
                 : " (" + cat + ") [" + time_text(ts, unit) + ", " + time_text(t1, unit) + "] µs";
      s << "<rect x=\"" << x0 << "\" y=\"" << lane_y(lane) + (stall ? 20 : 4) << "\" width=\""
        << std::max(0.5, x1 - x0) << "\" height=\"" << (stall ? 10 : 24) << "\" fill=\""
        << colour(e) << "\"" << (stall ? "" : " stroke=\"white\" stroke-width=\"0.3\"")
        << "><title>" << escape(name + span) << "</title></rect>\n";
      if (!stall && x1 - x0 > 60) {
        s << "<text x=\"" << x0 + 3 << "\" y=\"" << lane_y(lane) + 15 << "\" fill=\"white\">"
          << escape(short_label(name).substr(0, static_cast<size_t>((x1 - x0) / 6))) << "</text>\n";
      }
    } else if (ph == "s") {
      flow_start[e.id] = {x_of(std::clamp(ts, from, to)), lane_y(lane) + 16.0};
    } else if (ph == "f") {
      auto it = flow_start.find(e.id);
      if (it == flow_start.end() || ts < from || ts > to) continue;
      s << "<line x1=\"" << it->second.first << "\" y1=\"" << it->second.second << "\" x2=\""
        << x_of(ts) << "\" y2=\"" << lane_y(lane) + 16
        << "\" stroke=\"#d32f2f\" stroke-width=\"0.7\" "
        << "opacity=\"0.6\"/>\n";
    }
  }
  // Legend.
  const int ly = kTop + static_cast<int>(tracks.size()) * kLaneHeight + 20;
  for (size_t k = 0; k < legend.size(); ++k) {
    const auto& [label, fill] = legend[k];
    const int lx = legend_at[k].first, y = ly + 18 * legend_at[k].second;
    s << "<rect x=\"" << lx << "\" y=\"" << y << "\" width=\"12\" height=\"12\" fill=\"" << fill
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << y + 10 << "\">" << escape(label)
      << "</text>\n";
  }
  s << "<text x=\"" << kLeft << "\" y=\"" << ly + 18 * (legend_rows - 1) + 34
    << "\" fill=\"#666666\">"
    << (cycles ? "time in cycles; LOAD/STORE slices include their DRAM waits (hover a slice for "
                 "its span)"
               : "time in microseconds; one box per node, coloured by op (hover a box for its "
                 "span)")
    << "</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace

void set_time_unit(nlohmann::json& doc, TimeUnit unit) {
  doc["otherData"][kUnitKey] = unit == TimeUnit::kCycle ? "cycle" : "us";
}

TimeUnit time_unit_of(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("otherData")) return TimeUnit::kCycle;
  const nlohmann::json& other = doc["otherData"];
  if (!other.is_object() || !other.contains(kUnitKey)) return TimeUnit::kCycle;
  const nlohmann::json& unit = other[kUnitKey];
  if (unit == "cycle") return TimeUnit::kCycle;
  if (unit == "us") return TimeUnit::kMicrosecond;
  throw UserError("not a Weft timeline: otherData." + std::string(kUnitKey) + " = " + unit.dump() +
                  " is not \"cycle\" or \"us\"");
}

std::string trace_to_svg(const nlohmann::json& trace, const SvgOptions& o) {
  try {
    return render(trace, o, o.unit ? *o.unit : time_unit_of(trace));
  } catch (const nlohmann::json::exception& e) {  // any left-over type mismatch is the input's
    throw UserError(std::string("not a Weft timeline: ") + e.what());
  }
}

}  // namespace weft::sim::cycle
