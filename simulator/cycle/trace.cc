// Chrome trace JSON rendering; see trace.h.
#include "simulator/cycle/trace.h"

namespace weft::sim::cycle {

namespace {
const char* track_name(int t) {
  static const char* const kNames[] = {"fetch", "load", "compute", "store"};
  return kNames[t];
}
}  // namespace

void Trace::slice(Track t, const std::string& name, uint64_t start, uint64_t end,
                  nlohmann::json args, const char* category) {
  events_.push_back({{"name", name},
                     {"cat", category},
                     {"ph", "X"},
                     {"pid", 1},
                     {"tid", static_cast<int>(t)},
                     {"ts", start},
                     {"dur", end - start + 1},
                     {"args", std::move(args)}});
}

void Trace::instant(Track t, const std::string& name, uint64_t cycle, nlohmann::json args) {
  events_.push_back({{"name", name},
                     {"cat", "token"},
                     {"ph", "i"},
                     {"s", "t"},
                     {"pid", 1},
                     {"tid", static_cast<int>(t)},
                     {"ts", cycle},
                     {"args", std::move(args)}});
}

void Trace::flow(Track from, uint64_t t0, Track to, uint64_t t1, const std::string& name) {
  const uint64_t id = next_flow_id_++;
  events_.push_back({{"name", name},
                     {"cat", "token"},
                     {"ph", "s"},
                     {"id", id},
                     {"pid", 1},
                     {"tid", static_cast<int>(from)},
                     {"ts", t0}});
  events_.push_back({{"name", name},
                     {"cat", "token"},
                     {"ph", "f"},
                     {"bp", "e"},
                     {"id", id},
                     {"pid", 1},
                     {"tid", static_cast<int>(to)},
                     {"ts", t1}});
}

nlohmann::json Trace::to_json() const {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", "weft accelerator (1 us = 1 cycle)"}}}});
  for (int t = 0; t < 4; ++t) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"args", {{"name", track_name(t)}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"args", {{"sort_index", t}}}});
  }
  for (const auto& e : events_) events.push_back(e);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

}  // namespace weft::sim::cycle
