// The VTA profiler counters every engine reports, and their STATS.json form.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace weft::sim {

/// VTA's profiler counters (DRAM bytes moved per memory type, micro-ops executed).
struct VtaCounters {
  uint64_t inp_load_nbytes = 0;
  uint64_t wgt_load_nbytes = 0;
  uint64_t acc_load_nbytes = 0;  // ACC and ACC_8BIT loads
  uint64_t uop_load_nbytes = 0;
  uint64_t out_store_nbytes = 0;
  uint64_t gemm_counter = 0;  // GEMM micro-op executions without reset_reg
  uint64_t alu_counter = 0;   // ALU micro-op executions
  uint64_t insn_count = 0;    // instructions executed, FINISH included

  bool operator==(const VtaCounters& o) const;
};

/// The counters as a JSON object with VTA's names.
nlohmann::ordered_json to_json(const VtaCounters& c);

}  // namespace weft::sim
