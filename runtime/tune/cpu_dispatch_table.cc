// The CPU dispatch table: its JSON form, its checks and the bucket lookup; see
// cpu_dispatch_table.h.
#include "runtime/tune/cpu_dispatch_table.h"

#include <fstream>
#include <set>

#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_schedules.h"
#include "runtime/tune/database.h"

namespace weft::rt::tune {

using nlohmann::json;

namespace {

const std::set<std::string>& dims_of(const std::string& op) {
  static const std::set<std::string> dense{"m", "n", "k"};
  static const std::set<std::string> conv{"n", "ic", "oc", "oh", "ow", "kh", "stride"};
  return op == "dense" ? dense : conv;
}

// The knobs as the operator's schedule, checked; UserError (the operator's message) if not.
void check_knobs(const std::string& op, const json& knobs) {
  if (op == "dense") {
    compiler::ops::cpu::validate(dense_schedule_of(knobs));
    return;
  }
  const compiler::ops::cpu::ConvSchedule s = conv_schedule_of(knobs);
  if (s.ow < 1 || s.ow > 16) throw UserError("conv2d schedule: ow " + std::to_string(s.ow) + " is outside 1..16");
  if (s.oc_blocks != 1 && s.oc_blocks != 2 && s.oc_blocks != 4)
    throw UserError("conv2d schedule: oc_blocks " + std::to_string(s.oc_blocks) + " (1, 2 or 4)");
  if (s.reduce_order != 0 && s.reduce_order != 1)
    throw UserError("conv2d schedule: reduce_order " + std::to_string(s.reduce_order) + " (0 or 1)");
  if (s.ci_unroll < 1 || s.ci_unroll > 16)
    throw UserError("conv2d schedule: ci_unroll " + std::to_string(s.ci_unroll) + " is outside 1..16");
}

CpuDispatchEntry entry_from_json(const json& e, const std::string& where) {
  auto bad = [&](const std::string& what) { throw UserError(where + ": " + what); };
  if (!e.is_object()) bad("an entry must be a JSON object");
  for (const char* f : {"op", "dtype", "kernel", "knobs"})
    if (!e.contains(f)) bad(std::string("the field '") + f + "' is missing");
  CpuDispatchEntry d;
  if (!e["op"].is_string() || !e["dtype"].is_string() || !e["kernel"].is_string())
    bad("op, dtype and kernel must be strings");
  d.op = e["op"].get<std::string>();
  d.dtype = e["dtype"].get<std::string>();
  d.kernel = e["kernel"].get<std::string>();
  if (d.op != "dense" && d.op != "conv2d") bad("unknown op '" + d.op + "' (dense or conv2d)");
  if (d.dtype != "float32" && d.dtype != "int8")
    bad("unknown dtype '" + d.dtype + "' (float32 or int8)");
  const std::set<std::string>& dims = dims_of(d.op);
  auto check_dim = [&](const std::string& name) {
    if (!dims.count(name)) bad("unknown " + d.op + " dimension '" + name + "'");
  };
  const json when = e.value("when", json::object());
  if (!when.is_object()) bad("'when' must be an object of [lo, hi] ranges");
  for (const auto& [name, r] : when.items()) {
    check_dim(name);
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer())
      bad("the range of '" + name + "' must be [lo, hi] (integers)");
    const int64_t lo = r[0].get<int64_t>(), hi = r[1].get<int64_t>();
    if (lo < 1 || hi < lo)
      bad("the range of '" + name + "' [" + std::to_string(lo) + ", " + std::to_string(hi) +
          "] is empty or below 1");
    d.when[name] = {lo, hi};
  }
  const json home = e.value("home", json::object());
  if (!home.is_object()) bad("'home' must be an object of sizes");
  for (const auto& [name, v] : home.items()) {
    check_dim(name);
    if (!v.is_number_integer() || v.get<int64_t>() < 1) bad("home size '" + name + "' must be a positive integer");
    d.home[name] = v.get<int64_t>();
  }
  if (!e["knobs"].is_object()) bad("'knobs' must be an object");
  d.knobs = e["knobs"];
  try {
    check_knobs(d.op, d.knobs);
  } catch (const UserError& err) {
    bad("kernel '" + d.kernel + "': " + err.what());
  }
  if (e.contains("seconds") && e["seconds"].is_number()) d.seconds = e["seconds"].get<double>();
  return d;
}

}  // namespace

bool CpuDispatchEntry::holds(const ShapeDims& d) const {
  for (const auto& [name, r] : when) {
    auto it = d.find(name);
    if (it == d.end() || it->second < r.first || it->second > r.second) return false;
  }
  return true;
}

std::string CpuDispatchEntry::describe() const {
  std::string s;
  for (const auto& [name, r] : when)
    s += (s.empty() ? "" : ", ") + name + " " + std::to_string(r.first) +
         (r.second >= kNoUpperBound ? "+" : ".." + std::to_string(r.second));
  return s.empty() ? "any shape" : s;
}

CpuDispatchTable CpuDispatchTable::from_json(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("host_kind") || !j["host_kind"].is_string())
    throw UserError(where + ": a dispatch table is an object with 'host_kind' and 'entries'");
  if (!j.contains("entries") || !j["entries"].is_array())
    throw UserError(where + ": the field 'entries' (an array) is missing");
  CpuDispatchTable t(j["host_kind"].get<std::string>());
  const json& es = j["entries"];
  for (size_t i = 0; i < es.size(); ++i)
    t.add(entry_from_json(es[i], where + ": entry " + std::to_string(i + 1)));
  return t;
}

CpuDispatchTable CpuDispatchTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("dispatch table '" + path + "': cannot read it");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw UserError("dispatch table '" + path + "': not JSON (" + e.what() + ")");
  }
  return from_json(j, "dispatch table '" + path + "'");
}

json CpuDispatchTable::to_json() const {
  json es = json::array();
  for (const CpuDispatchEntry& e : entries_) {
    json when = json::object(), home = json::object();
    for (const auto& [n, r] : e.when) when[n] = {r.first, r.second};
    for (const auto& [n, v] : e.home) home[n] = v;
    es.push_back({{"op", e.op}, {"dtype", e.dtype}, {"when", when}, {"home", home},
                  {"kernel", e.kernel}, {"knobs", e.knobs}, {"seconds", e.seconds}});
  }
  return {{"host_kind", host_kind_}, {"entries", es}};
}

const CpuDispatchEntry* CpuDispatchTable::find(const std::string& op, const std::string& dtype,
                                         const ShapeDims& d) const {
  for (const CpuDispatchEntry& e : entries_)
    if (e.op == op && e.dtype == dtype && e.holds(d)) return &e;
  return nullptr;
}

std::string dispatch_table_path(const std::string& host_kind) {
  return default_records_dir() + "/cpu_dispatch_" + host_kind + ".json";
}

}  // namespace weft::rt::tune
