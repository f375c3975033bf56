// What `weft dse` reports: the summary JSON (schema "weft-dse/1": every point's record and the
// Pareto fronts of latency against resources and against energy, by point name) and the table
// for people. The fronts are over the points that ran ("status": "ok").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace weft::rt::dse {

/// A metric of a record by its name in the fronts: "latency_us", "macs" (MACs per cycle, about
/// one DSP48E2 each), "bram36", "lut", "ff", "dsp" (from synthesis), "energy_uj". Nothing
/// when the record lacks it.
bool record_metric(const nlohmann::json& record, const std::string& metric, double* value);

/// The fronts reported: latency against each of these, where every ok point has the metric.
/// "resources" is latency against MACs and BRAM36 (and LUT and DSP after synthesis) at once.
std::vector<std::string> front_names(const std::vector<nlohmann::json>& records);

/// The names of the points on a front ("latency_vs_<metric>"), by increasing latency.
std::vector<std::string> front_of(const std::vector<nlohmann::json>& records,
                                  const std::string& front);

/// {"schema": "weft-dse/1", "workload", "base", "platform", "points_total", "points_ok",
///  "measured", "points": [records], "pareto": {"latency_vs_<metric>": [names]}}.
nlohmann::ordered_json dse_summary(const std::vector<nlohmann::json>& records,
                                   const std::string& workload, const std::string& base,
                                   const std::string& platform, size_t measured);

/// One line per point (latency, utilization, energy, resources, which fronts it is on) and
/// the fronts.
std::string dse_table(const nlohmann::ordered_json& summary);

}  // namespace weft::rt::dse
