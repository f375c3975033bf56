// Running a sweep (`weft dse`): every point made into a configuration and platform by the one
// reader of configuration files (isa::config_from_json, derive_layout, platform_from_json; a
// point they refuse is recorded as "invalid" with their message), its workload compiled and
// run on the cycle model (workload.h), priced by the energy table and costed in resources
// (resources.h). Points run in parallel on the tuner's thread pool (runtime/tune/
// thread_runner.h), or over MPI ranks as well (dse_mpi.h); each finished point goes to the
// results database at once, and a point already there is not measured again.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hardware/cost/energy_table.h"
#include "runtime/dse/sweep.h"
#include "runtime/dse/workload.h"

namespace weft::rt::dse {

/// How points are measured and costed.
struct DseOptions {
  Workload workload;
  std::string energy;         // energy table: "" the default, a shipped name, or a file
  bool synth = false;         // resources from yosys (synth.sh) instead of the estimate
  int synth_timeout_s = 600;  // per point, with synth
  int jobs = 1;               // points measured at once
  std::string db;             // results database (JSON lines), "" for none
};

/// What identifies a measured point: the workload, the hardware and platform (every field but
/// names and descriptions), the energy table and the resource source.
std::string point_key(const PointSpec& p, const DseOptions& o);

/// The records of a group of points that run alike (the same hardware and platform but for
/// the clock: the cycle model counts cycles, the clock only turns them into time and power),
/// measured once and recorded per point, in the group's order, priced by `table` (o.energy's,
/// loaded once by the caller). Never throws for a point: a point that fails is recorded
/// "failed" with the reason. A record (docs/codesign.md, "Design-space exploration"):
/// {"key", "name", "params", "status": "ok"|"invalid"|"failed", "reason" (unless ok),
///  "config", "platform", and when ok "cycles", "latency_us", "macs", "utilization",
///  "energy" (the energy report: "total_uj", "pj_per_mac", ...), "resources", "layers":
///  [{"name", "op", "cycles", "macs", "utilization", "energy_uj"}], "seconds"}.
std::vector<nlohmann::json> measure_group(const std::vector<PointSpec>& points,
                                          const std::vector<size_t>& group, const DseOptions& o,
                                          const cost::EnergyTable& table);

/// How the groups of a sweep are measured: `done(g, records)` once per group g (from any
/// thread, one call at a time or not), with measure_group's records. The default runs them on
/// the thread pool, o.jobs at once; dse_mpi.h's spreads them over MPI ranks too.
using GroupRunner = std::function<void(
    const std::vector<std::vector<size_t>>& groups,
    const std::function<void(size_t g, std::vector<nlohmann::json> records)>& done)>;
GroupRunner thread_group_runner(const std::vector<PointSpec>& points, const DseOptions& o);

/// The records of every point, in the points' order; `measured` of them were measured now
/// (the others came from the database). Points that run alike are measured once (a group).
/// `progress` gets one line per point as it finishes.
struct DseRun {
  std::vector<nlohmann::json> records;
  size_t measured = 0;
};
DseRun run_dse(const std::vector<PointSpec>& points, const DseOptions& o,
               const std::function<void(const std::string&)>& progress,
               const GroupRunner& runner);

}  // namespace weft::rt::dse
