// The fetch unit (docs/microarchitecture.md §Fetch): reads the instruction stream in bursts
// while its FIFO has room for the whole burst, and dispatches one instruction per cycle, in
// order, into the command queue of the module that runs it.
#pragma once

#include <cstdint>
#include <deque>

#include "hardware/isa/layout.h"
#include "simulator/memory/axi_memory.h"

namespace weft::sim::cycle {

/// Fetch state for one run.
class FetchUnit {
 public:
  FetchUnit(const isa::Layout& l, const isa::Platform& p, uint64_t insn_addr, uint64_t count);

  /// Whether a burst could be requested now (instructions remain and the FIFO has room).
  bool wants_burst() const;
  /// Beats of the burst that would be requested.
  uint32_t next_beats() const { return next_.beats; }
  /// That burst was accepted at `cycle`, its first beat at `first_beat`.
  void accepted(uint64_t cycle, uint64_t first_beat);
  /// Earliest cycle at which the next burst may be requested.
  uint64_t want() const { return want_; }
  /// The request lost arbitration or found no slot; try again at `cycle`.
  void retry_at(uint64_t cycle) { want_ = cycle; }

  /// Whether an instruction is held (arrived or not).
  bool has_head() const { return !fifo_.empty(); }
  /// Program index of the oldest held instruction and the first cycle it can be dispatched.
  uint64_t head_index() const { return fifo_.front().index; }
  uint64_t head_ready() const { return fifo_.front().ready; }
  /// The oldest instruction was dispatched.
  void pop_head() { fifo_.pop_front(); }
  /// Whether every instruction has been requested and dispatched.
  bool all_dispatched() const { return requested_ == count_ && fifo_.empty(); }
  /// Instruction bytes requested so far.
  uint64_t fetched_bytes() const { return requested_ * 16; }

 private:
  void plan_next();

  const isa::Platform& p_;
  uint64_t addr_, count_, capacity_;
  uint64_t requested_ = 0;  // instructions requested so far
  uint64_t want_ = 0;
  Burst next_;
  uint64_t next_count_ = 0;  // instructions in next_
  struct Held {
    uint64_t index;
    uint64_t ready;
  };
  std::deque<Held> fifo_;
};

}  // namespace weft::sim::cycle
