// What the cycle model reports: total cycles, per-module busy and stall cycles split by cause,
// DRAM traffic per memory type, micro-op counts, compute utilization and the action counts an
// energy model prices.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "simulator/common/activity.h"
#include "simulator/common/stats.h"

namespace weft::sim::cycle {

/// How one module spent its cycles; every cycle of the run is in exactly one field.
struct ModuleCycles {
  uint64_t busy = 0;             // executing an instruction and making progress
  uint64_t stall_token = 0;      // an instruction waits for a dependency token
  uint64_t stall_dram = 0;       // inside a LOAD/STORE, waiting for the memory system
  uint64_t stall_cmd_empty = 0;  // work remains but no command has arrived from fetch
  uint64_t stall_hazard = 0;     // compute: micro-op issue held by an accumulator RAW hazard
  uint64_t stall_drain = 0;      // compute: LOAD/FINISH waits for the GEMM/ALU pipeline to drain
  uint64_t idle = 0;             // no instruction left for this module
  uint64_t total() const {
    return busy + stall_token + stall_dram + stall_cmd_empty + stall_hazard + stall_drain + idle;
  }
};

/// How the fetch unit spent its cycles.
struct FetchCycles {
  uint64_t busy = 0;            // dispatched an instruction
  uint64_t stall_cmd_full = 0;  // next instruction ready but its module's command queue is full
  uint64_t stall_dram = 0;      // waiting for instruction bytes from memory
  uint64_t idle = 0;            // every instruction dispatched
  uint64_t total() const { return busy + stall_cmd_full + stall_dram + idle; }
};

/// Everything a cycle-model run reports.
struct CycleStats {
  uint64_t cycles = 0;
  FetchCycles fetch;
  ModuleCycles load, compute, store;
  VtaCounters counters;  // the same counters as the functional model
  uint64_t insn_fetch_nbytes = 0;
  uint64_t read_bursts = 0, read_beats = 0, write_bursts = 0, write_beats = 0;
  uint64_t gemm_uops = 0;  // GEMM micro-op iterations, reset ones included
  uint64_t alu_uops = 0;
  Activity activity;  // what the run did to the hardware, for energy (hardware/cost)
  /// Non-reset GEMM micro-ops (one ideal cycle each) divided by total cycles.
  double utilization() const {
    return cycles == 0 ? 0.0 : static_cast<double>(counters.gemm_counter) / cycles;
  }
};

/// The cycle-model part of STATS.json (the VTA counters are added by the caller).
nlohmann::ordered_json to_json(const CycleStats& s);

}  // namespace weft::sim::cycle
