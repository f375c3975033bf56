// JSON form of the cycle-model statistics.
#include "simulator/cycle/cycle_stats.h"

namespace weft::sim::cycle {

// Built key by key: nlohmann's nested initializer lists copy every element once more, and a
// network of many short kernels builds one of these per kernel.
namespace {
nlohmann::ordered_json module_json(const ModuleCycles& m) {
  nlohmann::ordered_json j;
  j["busy"] = m.busy;
  j["stall_token"] = m.stall_token;
  j["stall_dram"] = m.stall_dram;
  j["stall_cmd_empty"] = m.stall_cmd_empty;
  j["stall_hazard"] = m.stall_hazard;
  j["stall_drain"] = m.stall_drain;
  j["idle"] = m.idle;
  return j;
}
}  // namespace

nlohmann::ordered_json to_json(const CycleStats& s) {
  nlohmann::ordered_json j;
  j["cycles"] = s.cycles;
  j["utilization"] = s.utilization();
  j["gemm_uops"] = s.gemm_uops;
  j["alu_uops"] = s.alu_uops;
  nlohmann::ordered_json& modules = j["modules"];
  nlohmann::ordered_json& fetch = modules["fetch"];
  fetch["busy"] = s.fetch.busy;
  fetch["stall_cmd_full"] = s.fetch.stall_cmd_full;
  fetch["stall_dram"] = s.fetch.stall_dram;
  fetch["idle"] = s.fetch.idle;
  modules["load"] = module_json(s.load);
  modules["compute"] = module_json(s.compute);
  modules["store"] = module_json(s.store);
  nlohmann::ordered_json& dram = j["dram"];
  nlohmann::ordered_json& read = dram["read_nbytes"];
  read["insn"] = s.insn_fetch_nbytes;
  read["uop"] = s.counters.uop_load_nbytes;
  read["inp"] = s.counters.inp_load_nbytes;
  read["wgt"] = s.counters.wgt_load_nbytes;
  read["acc"] = s.counters.acc_load_nbytes;
  dram["write_nbytes"]["out"] = s.counters.out_store_nbytes;
  dram["read_bursts"] = s.read_bursts;
  dram["read_beats"] = s.read_beats;
  dram["write_bursts"] = s.write_bursts;
  dram["write_beats"] = s.write_beats;
  j["activity"] = to_json(s.activity);
  return j;
}

}  // namespace weft::sim::cycle
