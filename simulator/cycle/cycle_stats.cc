// JSON form of the cycle-model statistics.
#include "simulator/cycle/cycle_stats.h"

namespace weft::sim::cycle {

namespace {
nlohmann::ordered_json module_json(const ModuleCycles& m) {
  return {{"busy", m.busy},
          {"stall_token", m.stall_token},
          {"stall_dram", m.stall_dram},
          {"stall_cmd_empty", m.stall_cmd_empty},
          {"stall_hazard", m.stall_hazard},
          {"stall_drain", m.stall_drain},
          {"idle", m.idle}};
}
}  // namespace

nlohmann::ordered_json to_json(const CycleStats& s) {
  nlohmann::ordered_json j;
  j["cycles"] = s.cycles;
  j["utilization"] = s.utilization();
  j["gemm_uops"] = s.gemm_uops;
  j["alu_uops"] = s.alu_uops;
  j["modules"] = {{"fetch",
                   {{"busy", s.fetch.busy},
                    {"stall_cmd_full", s.fetch.stall_cmd_full},
                    {"stall_dram", s.fetch.stall_dram},
                    {"idle", s.fetch.idle}}},
                  {"load", module_json(s.load)},
                  {"compute", module_json(s.compute)},
                  {"store", module_json(s.store)}};
  j["dram"] = {{"read_nbytes",
                {{"insn", s.insn_fetch_nbytes},
                 {"uop", s.counters.uop_load_nbytes},
                 {"inp", s.counters.inp_load_nbytes},
                 {"wgt", s.counters.wgt_load_nbytes},
                 {"acc", s.counters.acc_load_nbytes}}},
               {"write_nbytes", {{"out", s.counters.out_store_nbytes}}},
               {"read_bursts", s.read_bursts},
               {"read_beats", s.read_beats},
               {"write_bursts", s.write_bursts},
               {"write_beats", s.write_beats}};
  j["activity"] = to_json(s.activity);
  return j;
}

}  // namespace weft::sim::cycle
