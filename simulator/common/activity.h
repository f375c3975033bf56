// What a run did to the hardware, action by action: the int8 MACs and int32 adds of the GEMM
// core, the ALU's lane operations, the bytes read from and written to each on-chip buffer, the
// bytes moved to and from DRAM, the instruction bytes through the fetch FIFO and the command
// queues, the dependency-token pushes and pops, and the bytes latched by the compute pipeline.
// These are what an energy model prices (hardware/cost/energy.h); they follow from each
// instruction's fields and the configuration alone (every instruction runs once), so the cycle
// model and the RTL harness count them with the one function below.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::sim {

/// Bytes read from and written to one on-chip buffer.
struct BufferTraffic {
  uint64_t read_bytes = 0, write_bytes = 0;
  bool operator==(const BufferTraffic& o) const {
    return read_bytes == o.read_bytes && write_bytes == o.write_bytes;
  }
};

/// The action counts of a run (or of several runs, added).
struct Activity {
  uint64_t macs = 0;      // int8 multiply-accumulates of non-reset GEMM micro-ops
  uint64_t acc_adds = 0;  // int32 adds of a dot product into its accumulator lane
  uint64_t alu_ops = 0;   // int32 ALU lane operations: MIN, MAX, ADD, SHR
  uint64_t alu_muls = 0;  // int32 ALU lane multiplies
  BufferTraffic uop, inp, wgt, acc;  // LOAD padding counts as written; ACC_8BIT widens
  uint64_t dram_read_bytes = 0;      // instruction fetch and LOADs
  uint64_t dram_write_bytes = 0;     // STOREs
  uint64_t queue_bytes = 0;     // instruction bytes written to and read from fetch FIFO, cmd queue
  uint64_t token_ops = 0;       // dependency-token pushes and pops
  uint64_t pipeline_bytes = 0;  // operand and result bytes latched by the GEMM/ALU pipeline

  /// Adds what one instruction does on configuration `l`.
  void add(const isa::Layout& l, const isa::Insn& insn);
  Activity& operator+=(const Activity& o);
  bool operator==(const Activity& o) const;
};

/// The counts as a JSON object (the "activity" of a cycle-model run's statistics).
nlohmann::ordered_json to_json(const Activity& a);
/// The counts from to_json's object; InternalError naming the field when one is missing.
Activity activity_from_json(const nlohmann::json& j);

}  // namespace weft::sim
