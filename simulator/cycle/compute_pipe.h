// The compute module's GEMM and tensor-ALU pipelines (docs/microarchitecture.md §Compute):
// one micro-op iteration issues per cycle (ALU with a register operand: one per two cycles),
// an iteration that reads an accumulator element still being written waits for the write,
// and results land `pipeline_depth - 1` cycles after issue. Consecutive GEMM/ALU instructions
// issue back to back; each completes (and pushes its tokens) when its last write and every
// earlier write have landed. A GEMM whose indices are all in range takes the shortcut of
// docs/microarchitecture.md ("Shortcuts"): its issue times in closed form (or, when its own
// micro-ops could hold each other up, one cheap pass of the scoreboard) and its data as
// blocked int8 GEMMs; it gives the cycles and data of the one-by-one loop, which stays as the
// reference (`shortcuts = false`) and serves ALU instructions and index errors.
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
  /// `shortcuts = false` steps every GEMM iteration one by one (the reference).
  explicit ComputePipe(const isa::Layout& l, bool shortcuts = true);
  /// Runs the instruction starting at `start` (data included); throws UserError (naming
  /// `index`) when a micro-op index leaves its buffer.
  IssueTiming run(const isa::Insn& insn, size_t index, uint64_t start, Datapath& dp,
                  const std::atomic<bool>* cancel = nullptr);
  /// The cycle after the last accumulator write of everything issued so far.
  uint64_t drained() const { return drained_; }

 private:
  IssueTiming run_stepped(const isa::Insn& insn, size_t index, uint64_t start, Datapath& dp,
                          const std::atomic<bool>* cancel);
  IssueTiming run_gemm_fast(const isa::Insn& insn, uint64_t start, Datapath& dp,
                            const std::atomic<bool>* cancel);
  bool indices_in_range(const isa::Insn& insn, const Datapath& dp) const;
  bool no_hazard_inside(const isa::Insn& insn, const Datapath& dp, int64_t window) const;
  IssueTiming finish(IssueTiming t);

  const isa::Layout& l_;
  bool shortcuts_;
  // Per accumulator element: the first cycle a reader may issue. Exact for every element
  // written in the last P - 1 iterations issued; any other entry may be older than the true
  // value, but then both are at most the next issue cycle, so neither can hold an issue.
  std::vector<uint64_t> ready_;
  uint64_t drained_ = 0;
};

}  // namespace weft::sim::cycle
