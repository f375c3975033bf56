// Running a sweep (see dse_run.h).
#include "runtime/dse/dse_run.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

#include "hardware/cost/energy_table.h"
#include "hardware/isa/config_file.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "runtime/dse/resources.h"
#include "runtime/dse/results_db.h"
#include "runtime/tune/thread_runner.h"

namespace weft::rt::dse {

namespace {

using ojson = nlohmann::ordered_json;

ojson without_names(ojson j) {
  j.erase("name");
  j.erase("description");
  return j;
}

std::string progress_line(const nlohmann::json& r) {
  const std::string status = r.value("status", "");
  if (status != "ok") return r["name"].get<std::string>() + ": " + status + ": " + r.value("reason", "");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %llu cycles (%.1f%% of the GEMM bound), %.1f uJ, %lld BRAM36, %.1f s",
                r["name"].get<std::string>().c_str(), r["cycles"].get<unsigned long long>(),
                100.0 * r["utilization"].get<double>(), r["energy"]["total_uj"].get<double>(),
                r["resources"]["bram36"].get<long long>(), r["seconds"].get<double>());
  return buf;
}

}  // namespace

std::string point_key(const PointSpec& p, const DseOptions& o) {
  return o.workload.key() + "|" + without_names(p.config).dump() + "|" +
         without_names(p.platform).dump() + "|energy=" +
         (o.energy.empty() ? cost::shipped_energy_tables().front().name : o.energy) +
         "|resources=" + (o.synth ? "yosys" : "estimate");
}

namespace {

// What running a point left: its status, and when it ran, the run and its resources. Points
// that differ only in the clock share one (the cycle model counts cycles; the clock only
// turns them into time and power).
struct Measured {
  std::string status = "ok", reason;
  isa::Layout layout;
  WorkloadRun run;
  ojson resources;
  double seconds = 0;
};

// The point's platform without the clock: points equal in it (and in the hardware) run alike.
std::string run_key(const PointSpec& p, const DseOptions& o) {
  ojson pf = without_names(p.platform);
  pf.erase("clock_mhz");
  return o.workload.key() + "|" + without_names(p.config).dump() + "|" + pf.dump();
}

Measured measure(const PointSpec& p, const DseOptions& o, const cost::EnergyTable& table) {
  const auto t0 = std::chrono::steady_clock::now();
  Measured m;
  const std::string where = "point '" + p.name + "'";
  isa::Platform platform;
  try {
    m.layout = isa::derive_layout(isa::config_from_json(p.config, where));
    platform = isa::platform_from_json(p.platform, where);
  } catch (const UserError& e) {
    m.status = "invalid";
    m.reason = e.what();
    return m;
  }
  try {
    m.run = run_workload(o.workload, m.layout, platform, table);
    // A network whose partition left every layer on the CPU measured nothing of the point.
    if (m.run.cycles == 0)
      throw UserError("no layer of the workload ran on the accelerator of this configuration");
    m.resources = point_resources(m.layout, p.config, o.synth, o.synth_timeout_s);
  } catch (const UserError& e) {
    m.status = "failed";
    m.reason = e.what();
  } catch (const InternalError& e) {
    m.status = "failed";
    m.reason = std::string("internal error: ") + e.what();
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

ojson record_of(const PointSpec& p, const DseOptions& o, const cost::EnergyTable& table,
                const Measured& m) {
  ojson r;
  r["key"] = point_key(p, o);
  r["name"] = p.name;
  r["params"] = p.params;
  r["status"] = m.status;
  if (m.status != "ok") r["reason"] = m.reason;
  r["config"] = p.config;
  r["platform"] = p.platform;
  if (m.status != "ok") return r;
  isa::Platform platform;
  try {
    platform = isa::platform_from_json(p.platform, "point '" + p.name + "'");
  } catch (const UserError& e) {
    r["status"] = "invalid";
    r["reason"] = e.what();
    return r;
  }
  const WorkloadRun& run = m.run;
  r["cycles"] = run.cycles;
  r["latency_us"] = double(run.cycles) / platform.clock_mhz;
  r["macs"] = run.macs;
  r["utilization"] = run.utilization;
  r["energy"] = cost::to_json(run.energy, table, platform.clock_mhz, run.macs);
  r["resources"] = m.resources;
  ojson layers = ojson::array();
  for (const auto& l : run.layers)
    layers.push_back({{"name", l.name}, {"op", l.op}, {"cycles", l.cycles}, {"macs", l.macs},
                      {"utilization", l.utilization}, {"energy_uj", l.energy_uj}});
  r["layers"] = layers;
  r["seconds"] = m.seconds;
  return r;
}

}  // namespace

std::vector<nlohmann::json> measure_group(const std::vector<PointSpec>& points,
                                          const std::vector<size_t>& group, const DseOptions& o,
                                          const cost::EnergyTable& table) {
  const PointSpec& first = points.at(group.at(0));
  const Measured m = measure(first, o, table);
  std::vector<nlohmann::json> records;
  for (size_t i : group) {
    // An invalid point is told its own reason (naming it), which costs no run.
    nlohmann::json rec = record_of(points[i], o, table,
                                   m.status == "invalid" && i != group.front()
                                       ? measure(points[i], o, table)
                                       : m);
    if (m.status == "failed" && i != group.front())
      rec["reason"] = m.reason + " (measured on point '" + first.name +
                      "', the same hardware at another clock)";
    records.push_back(std::move(rec));
  }
  return records;
}

GroupRunner thread_group_runner(const std::vector<PointSpec>& points, const DseOptions& o) {
  return [&points, &o](const std::vector<std::vector<size_t>>& groups,
                       const std::function<void(size_t, std::vector<nlohmann::json>)>& done) {
    const cost::EnergyTable table = cost::energy_table_for(o.energy);
    tune::parallel_for(groups.size(), o.jobs,
                       [&](size_t g) { done(g, measure_group(points, groups[g], o, table)); });
  };
}

DseRun run_dse(const std::vector<PointSpec>& points, const DseOptions& o,
               const std::function<void(const std::string&)>& progress,
               const GroupRunner& runner) {
  ResultsDb db(o.db);
  DseRun out;
  out.records.resize(points.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < points.size(); ++i) {
    if (auto rec = db.find(point_key(points[i], o))) {
      // The same hardware may have had another name in the sweep that measured it.
      (*rec)["name"] = points[i].name;
      (*rec)["params"] = points[i].params;
      (*rec)["config"] = points[i].config;
      (*rec)["platform"] = points[i].platform;
      out.records[i] = *rec;
    } else {
      todo.push_back(i);
    }
  }
  if (progress && todo.size() < points.size())
    progress(std::to_string(points.size() - todo.size()) + " of " +
             std::to_string(points.size()) + " points from the results database '" + o.db + "'");
  // Points that run alike (the same hardware and platform but for the clock) are measured
  // once, as one group.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of;
  for (size_t i : todo) {
    auto [it, fresh] = group_of.emplace(run_key(points[i], o), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::mutex mu;
  size_t done = 0;
  runner(groups, [&](size_t g, std::vector<nlohmann::json> records) {
    if (records.size() != groups.at(g).size())
      throw InternalError("dse: group " + std::to_string(g) + " came back with " +
                          std::to_string(records.size()) + " records for " +
                          std::to_string(groups[g].size()) + " points");
    std::lock_guard<std::mutex> lock(mu);
    for (size_t k = 0; k < records.size(); ++k) {
      const size_t i = groups[g][k];
      db.put(records[k]);
      out.records[i] = std::move(records[k]);
      ++done;
      if (progress)
        progress("[" + std::to_string(done) + "/" + std::to_string(todo.size()) + "] " +
                 progress_line(out.records[i]));
    }
  });
  out.measured = todo.size();
  return out;
}

}  // namespace weft::rt::dse
