// The report of a network run; see run_report.h.
#include "runtime/graph/run_report.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "driver/timeline.h"

namespace weft::rt::graph {

void add_run_details(StepReport& sr, const nlohmann::ordered_json& d, const isa::Layout& l,
                     const isa::Platform& pf) {
  if (d.contains("modules") && d["modules"].contains("compute")) {
    sr.compute = d["modules"]["compute"];
    if (d.contains("alu_uops")) sr.compute["alu_uops"] = d["alu_uops"];
  }
  if (d.contains("activity")) {
    sr.activity = sim::activity_from_json(d["activity"]);
    sr.has_activity = true;
  }
  if (!d.contains("gemm_uops") || !d.contains("dram")) return;
  sr.gemm_uops = d["gemm_uops"].get<uint64_t>();
  for (const auto& [kind, b] : d["dram"]["read_nbytes"].items()) sr.dram_bytes += b.get<uint64_t>();
  sr.dram_bytes += d["dram"]["write_nbytes"]["out"].get<uint64_t>();
  sr.memory_cycles = double(sr.dram_bytes) / (pf.axi_data_bits / 8.0);
  sr.mac_bound_cycles =
      double(sr.macs) / (double(l.config.batch()) * l.config.block_in() * l.config.block_out());
  const double top = std::max(double(sr.gemm_uops), sr.memory_cycles);
  if (sr.memory_cycles >= double(sr.gemm_uops))
    sr.limit = "memory";
  else if (double(sr.cycles) > 1.15 * top)
    sr.limit = "overlap";
  else if (double(sr.gemm_uops) > 1.15 * sr.mac_bound_cycles)
    sr.limit = "padding";
  else
    sr.limit = "compute";
}

void add_energy(RunReport& r, const cost::EnergyTable& t, const isa::Layout& l,
                const isa::Platform& pf) {
  r.energy = cost::Energy{};
  r.has_energy = false;
  for (StepReport& s : r.steps) {
    if (!s.has_activity) continue;
    s.energy = cost::energy_of(t, l, s.activity, s.cycles);
    s.has_energy = true;
    r.energy += s.energy;
    r.has_energy = true;
  }
  r.energy_table = t;
  r.clock_mhz = pf.clock_mhz;
}

double RunReport::utilization() const {
  return accel_cycles ? double(accel_macs) / (double(accel_cycles) * macs_per_cycle) : 0;
}

nlohmann::ordered_json RunReport::to_json() const {
  nlohmann::ordered_json j;
  j["network"] = network;
  j["config"] = config;
  j["platform"] = platform;
  j["engine"] = engine;
  j["accel_cycles"] = accel_cycles;
  j["accel_seconds"] = accel_seconds;
  j["cpu_seconds"] = cpu_seconds;
  j["total_seconds"] = total_seconds;
  j["wall_seconds"] = wall_seconds;
  j["macs"] = macs;
  j["accel_macs"] = accel_macs;
  j["accel_mac_fraction"] = macs ? double(accel_macs) / double(macs) : 0.0;
  j["gemm_bound_cycles"] = macs_per_cycle > 0 ? double(accel_macs) / macs_per_cycle : 0.0;
  j["utilization"] = utilization();
  int64_t floor = 0, floor_all_taps = 0;
  for (const StepReport& s : steps) {
    floor += s.isa_floor_cycles;
    floor_all_taps += s.isa_floor_all_taps_cycles;
  }
  j["isa_floor_cycles"] = floor;
  j["isa_floor_all_taps_cycles"] = floor_all_taps;
  j["device_arena_bytes"] = device_arena;
  j["host_arena_bytes"] = host_arena;
  j["host_staging_bytes"] = staging_bytes;
  j["weight_bytes"] = weight_bytes;
  if (has_energy) j["energy"] = cost::to_json(energy, energy_table, clock_mhz, accel_macs);
  j["nodes"] = nlohmann::ordered_json::array();
  for (const StepReport& s : steps) {
    nlohmann::ordered_json n;
    n["node"] = s.node;
    n["op"] = s.op;
    n["engine"] = s.engine;
    if (s.engine == "accel") {
      n["cycles"] = s.cycles;
      n["utilization"] = s.utilization;
      n["schedule"] = s.detail;
      n["schedule_source"] = s.schedule_source;
      n["isa_floor_cycles"] = s.isa_floor_cycles;
      n["isa_floor_all_taps_cycles"] = s.isa_floor_all_taps_cycles;
      if (!s.compute.is_null()) n["compute"] = s.compute;
      if (!s.limit.empty()) {
        n["gemm_uops"] = s.gemm_uops;
        n["dram_bytes"] = s.dram_bytes;
        n["memory_cycles"] = s.memory_cycles;
        n["mac_bound_cycles"] = s.mac_bound_cycles;
        n["limit"] = s.limit;
      }
      if (s.has_energy) n["energy"] = cost::to_json(s.energy, energy_table, clock_mhz, s.macs);
    } else {
      n["host_seconds"] = s.seconds;
      if (!s.detail.empty()) n["detail"] = s.detail;  // what the step does, or why on the CPU
    }
    n["macs"] = s.macs;
    n["seconds"] = s.seconds;
    n["share"] = s.share;
    j["nodes"].push_back(n);
  }
  return j;
}

std::string RunReport::table() const {
  std::ostringstream o;
  o << network << " on " << config << " (" << engine << " engine, platform " << platform << ")\n";
  o << std::left << std::setw(28) << "node" << std::setw(18) << "op" << std::setw(7) << "engine"
    << std::right << std::setw(12) << "cycles" << std::setw(12) << "time us" << std::setw(14)
    << "MACs" << std::setw(8) << "util" << std::setw(8) << "share";
  if (has_energy) o << std::setw(11) << "energy uJ" << std::setw(8) << "pJ/MAC";
  o << "\n";
  for (const StepReport& s : steps) {
    o << std::left << std::setw(28) << s.node.substr(0, 27) << std::setw(18) << s.op.substr(0, 17)
      << std::setw(7) << s.engine << std::right << std::setw(12)
      << (s.engine == "accel" ? std::to_string(s.cycles) : std::string("-")) << std::setw(12)
      << std::fixed << std::setprecision(1) << s.seconds * 1e6 << std::setw(14) << s.macs
      << std::setw(7) << std::setprecision(1) << (s.engine == "accel" ? s.utilization * 100 : 0.0)
      << "%" << std::setw(7) << s.share * 100 << "%";
    if (has_energy && s.has_energy) {
      o << std::setw(11) << std::setprecision(2) << s.energy.total_pj() * 1e-6 << std::setw(8)
        << (s.macs ? s.energy.total_pj() / double(s.macs) : 0.0);
    }
    o << "\n";
  }
  o << std::setprecision(3);
  std::map<std::string, int> sources;
  for (const StepReport& s : steps)
    if (!s.schedule_source.empty()) ++sources[s.schedule_source];
  if (!sources.empty()) {
    o << "schedules:";
    const char* sep = " ";
    for (const auto& [src, count] : sources) {
      o << sep << count << " from " << src;
      sep = ", ";
    }
    o << "\n";
  }
  o << "accelerator: " << accel_cycles << " cycles (" << accel_seconds * 1e3
    << " ms at the clock), " << accel_macs << " of " << macs << " MACs ("
    << (macs ? 100.0 * double(accel_macs) / double(macs) : 0.0) << "%), utilization "
    << utilization() * 100 << "% of the GEMM bound "
    << static_cast<uint64_t>(double(accel_macs) / macs_per_cycle) << " cycles\n";
  o << "cpu: " << cpu_seconds * 1e3 << " ms; total " << total_seconds * 1e3 << " ms; wall "
    << wall_seconds << " s; arenas: device " << device_arena << " B, host " << host_arena
    << " B; weights " << weight_bytes << " B; copy staging " << staging_bytes << " B\n";
  if (has_energy) {
    o << "accelerator " << cost::summary(energy, clock_mhz, accel_macs) << std::defaultfloat
      << " (table " << energy_table.name << ", " << energy_table.node_nm << " nm)\n";
  }
  return o.str();
}

nlohmann::json RunReport::timeline() const {
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"name", "process_name"},
                {"ph", "M"},
                {"pid", 1},
                {"args", {{"name", network + " on " + config}}}});
  ev.push_back({{"name", "thread_name"},
                {"ph", "M"},
                {"pid", 1},
                {"tid", 1},
                {"args", {{"name", "accelerator (" + engine + ")"}}}});
  ev.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 2}, {"args", {{"name", "cpu"}}}});
  for (const StepReport& s : steps) {
    nlohmann::json args = {{"op", s.op}, {"macs", s.macs}};
    if (s.engine == "accel") {
      args["cycles"] = s.cycles;
      args["utilization"] = s.utilization;
    }
    ev.push_back({{"name", s.node},
                  {"cat", s.op},
                  {"ph", "X"},
                  {"pid", 1},
                  {"tid", s.engine == "accel" ? 1 : 2},
                  {"ts", s.start_us},
                  {"dur", s.seconds * 1e6},
                  {"args", args}});
  }
  nlohmann::json doc = {{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
  driver::set_timeline_unit(doc, driver::TimelineUnit::kMicrosecond);  // so it renders as such
  return doc;
}

}  // namespace weft::rt::graph
