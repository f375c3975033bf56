// The store module's write DMA (STORE OUT): narrows accumulator rows to int8 and writes them
// in bursts, one beat per cycle from the cycle after the start, each burst's address with its
// first beat, waiting for a write slot when max_outstanding_writes bursts await their response
// (docs/microarchitecture.md §Store). Only the store module writes, so the whole schedule is
// known when the instruction starts.
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "simulator/cycle/datapath.h"
#include "simulator/memory/axi_memory.h"
#include "simulator/memory/dram_port.h"

namespace weft::sim::cycle {

/// Timing of one STORE.
struct StoreTiming {
  uint64_t done = 0;        // cycle of the last write response (the start cycle if empty)
  uint64_t beats = 0;       // data beats sent
  uint64_t dram_stall = 0;  // cycles in [start, done] not sending a beat (nor the start cycle)
};

/// Runs a STORE (instruction `index`) that starts at `start`: writes the data into `dram` and
/// returns its timing. `port`, when set, is told of each burst's bytes once they are in `dram`
/// (at `start`, the cycle the model moves the data).
StoreTiming run_store(const isa::Layout& l, AxiMemory& mem, const isa::Insn& insn, uint64_t start,
                      const Datapath& dp, std::vector<uint8_t>& dram, DramPort* port = nullptr,
                      int64_t index = -1);

}  // namespace weft::sim::cycle
