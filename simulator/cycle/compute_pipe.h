// The compute module's GEMM and tensor-ALU pipelines (docs/microarchitecture.md §Compute):
// one micro-op iteration issues per cycle (ALU with a register operand: one per two cycles),
// an iteration that reads an accumulator element still being written waits for the write,
// and results land `pipeline_depth - 1` cycles after issue. Consecutive GEMM/ALU instructions
// issue back to back; each completes (and pushes its tokens) when its last write and every
// earlier write have landed.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "simulator/cycle/datapath.h"

namespace weft::sim::cycle {

/// Timing of one GEMM or ALU instruction.
struct IssueTiming {
  uint64_t issue_end = 0;  // last cycle the issue stage is occupied
  uint64_t done = 0;       // cycle the last accumulator write lands (pushes happen here)
  uint64_t busy = 0;       // issue cycles (iterations x initiation interval; 1 if empty)
  uint64_t hazard = 0;     // issue cycles lost to accumulator RAW hazards
  uint64_t iterations = 0;
};

/// Issue scheduling with an accumulator scoreboard that persists across instructions.
class ComputePipe {
 public:
  explicit ComputePipe(const isa::Layout& l);
  /// Runs the instruction starting at `start` (data included); throws UserError (naming
  /// `index`) when a micro-op index leaves its buffer.
  IssueTiming run(const isa::Insn& insn, size_t index, uint64_t start, Datapath& dp,
                  const std::atomic<bool>* cancel = nullptr);
  /// The cycle after the last accumulator write of everything issued so far.
  uint64_t drained() const { return drained_; }

 private:
  const isa::Layout& l_;
  std::vector<uint64_t> ready_;  // per accumulator element: first cycle a reader may issue
  uint64_t drained_ = 0;
};

}  // namespace weft::sim::cycle
