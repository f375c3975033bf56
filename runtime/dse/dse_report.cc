// The summary and table of a sweep (see dse_report.h).
#include "runtime/dse/dse_report.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "runtime/dse/pareto.h"

namespace weft::rt::dse {

namespace {

bool ok(const nlohmann::json& r) { return r.value("status", "") == "ok"; }

// The metrics against latency of each front.
std::vector<std::string> front_metrics(const std::string& front,
                                       const std::vector<nlohmann::json>& records) {
  if (front != "resources") return {front};
  std::vector<std::string> m = {"macs", "bram36"};
  for (const char* s : {"lut", "dsp"}) {
    bool all = true;
    for (const auto& r : records) {
      double v;
      if (ok(r)) all &= record_metric(r, s, &v);
    }
    if (all) m.push_back(s);
  }
  return m;
}

}  // namespace

bool record_metric(const nlohmann::json& r, const std::string& metric, double* value) {
  const nlohmann::json* v = nullptr;
  if (metric == "latency_us" && r.contains("latency_us")) v = &r["latency_us"];
  if (metric == "energy_uj" && r.contains("energy")) v = &r["energy"]["total_uj"];
  if (r.contains("resources") &&
      (metric == "macs" || metric == "bram36" || metric == "lut" || metric == "ff" ||
       metric == "dsp") &&
      r["resources"].contains(metric))
    v = &r["resources"][metric];
  if (!v || !v->is_number()) return false;
  *value = v->get<double>();
  return true;
}

std::vector<std::string> front_names(const std::vector<nlohmann::json>& records) {
  std::vector<std::string> out;
  for (const char* m : {"macs", "bram36", "lut", "dsp", "energy_uj"}) {
    bool all = true, any = false;
    for (const auto& r : records) {
      if (!ok(r)) continue;
      double v;
      any = true;
      all &= record_metric(r, m, &v);
    }
    if (any && all) out.push_back(m);
  }
  if (!out.empty()) out.insert(out.begin(), "resources");
  return out;
}

std::vector<std::string> front_of(const std::vector<nlohmann::json>& records,
                                  const std::string& front) {
  const std::vector<std::string> metrics = front_metrics(front, records);
  std::vector<size_t> index;
  std::vector<std::vector<double>> objectives;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!ok(records[i])) continue;
    std::vector<double> row(1 + metrics.size());
    bool all = record_metric(records[i], "latency_us", &row[0]);
    for (size_t k = 0; k < metrics.size(); ++k)
      all &= record_metric(records[i], metrics[k], &row[k + 1]);
    if (!all) continue;
    index.push_back(i);
    objectives.push_back(std::move(row));
  }
  std::vector<std::string> names;
  for (size_t k : pareto_front(objectives))
    names.push_back(records[index[k]]["name"].get<std::string>());
  return names;
}

nlohmann::ordered_json dse_summary(const std::vector<nlohmann::json>& records,
                                   const std::string& workload, const std::string& base,
                                   const std::string& platform, size_t measured) {
  nlohmann::ordered_json j;
  j["schema"] = "weft-dse/1";
  j["workload"] = workload;
  j["base"] = base;
  j["platform"] = platform;
  j["points_total"] = records.size();
  j["points_ok"] = std::count_if(records.begin(), records.end(), ok);
  j["measured"] = measured;
  j["points"] = records;
  j["pareto"] = nlohmann::ordered_json::object();
  for (const auto& f : front_names(records)) j["pareto"]["latency_vs_" + f] = front_of(records, f);
  return j;
}

std::string dse_table(const nlohmann::ordered_json& s) {
  std::set<std::string> on_resources, on_energy;
  if (s["pareto"].contains("latency_vs_resources"))
    for (const auto& n : s["pareto"]["latency_vs_resources"]) on_resources.insert(n);
  if (s["pareto"].contains("latency_vs_energy_uj"))
    for (const auto& n : s["pareto"]["latency_vs_energy_uj"]) on_energy.insert(n);
  size_t w = 5;
  for (const auto& r : s["points"]) w = std::max(w, r["name"].get<std::string>().size());
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-*s %12s %11s %6s %11s %7s %6s %6s %7s %7s  %s\n", int(w),
                "point", "cycles", "latency us", "util", "energy uJ", "pJ/MAC", "MAC/c",
                "BRAM36", "LUT", "DSP", "front");
  out += buf;
  for (const auto& r : s["points"]) {
    const std::string name = r["name"];
    if (!ok(r)) {
      out += name + std::string(w - name.size(), ' ') + " " + r.value("status", "") + ": " +
             r.value("reason", "") + "\n";
      continue;
    }
    const auto& res = r["resources"];
    auto opt = [&](const char* k) {
      return res.contains(k) && res[k].is_number() ? std::to_string(res[k].get<long long>())
                                                   : std::string("-");
    };
    std::string front = std::string(on_resources.count(name) ? "R" : "") +
                        (on_energy.count(name) ? "E" : "");
    std::snprintf(buf, sizeof buf, "%-*s %12llu %11.1f %5.1f%% %11.1f %7.2f %6lld %6lld %7s %7s  %s\n",
                  int(w), name.c_str(), r["cycles"].get<unsigned long long>(),
                  r["latency_us"].get<double>(), 100.0 * r["utilization"].get<double>(),
                  r["energy"]["total_uj"].get<double>(),
                  r["energy"].value("pj_per_useful_mac", r["energy"].value("pj_per_mac", 0.0)),
                  res["macs"].get<long long>(), res["bram36"].get<long long>(), opt("lut").c_str(),
                  opt("dsp").c_str(), front.c_str());
    out += buf;
  }
  out += std::to_string(s["points_ok"].get<size_t>()) + " of " +
         std::to_string(s["points_total"].get<size_t>()) + " points ran (" +
         std::to_string(s["measured"].get<size_t>()) +
         " measured now); front R: latency against resources, E: latency against energy\n";
  for (const auto& [f, names] : s["pareto"].items()) {
    std::string line = "pareto " + f + ":";
    for (const auto& n : names) line += " " + n.get<std::string>();
    out += line + "\n";
  }
  return out;
}

}  // namespace weft::rt::dse
