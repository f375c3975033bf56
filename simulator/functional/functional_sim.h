// The golden functional model: exact semantics of every instruction (DESIGN.md §3), the
// load, compute and store modules each in program order, synchronised only by the four
// dependency-token queues. It schedules modules greedily (each runs as far as its tokens
// allow, FINISH only when nothing else can run). Queue depth is checked under that order;
// the cycle model checks it under real timing, so a program that relies on a particular
// interleaving to stay within depth may pass one and fail the other.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "hardware/isa/layout.h"
#include "simulator/common/stats.h"
#include "simulator/functional/buffers.h"

namespace weft::sim {

/// Runs programs on a DRAM image; on-chip buffers persist between runs, as in hardware.
class FunctionalSim {
 public:
  explicit FunctionalSim(const isa::Layout& layout);

  /// Runs `insn_count` instructions found at byte `insn_offset` of `dram`, updating `dram`
  /// in place. Throws UserError (naming instruction, field, module or queue) for a bad
  /// program, a deadlock, a token-queue overflow or tokens left over at FINISH; the image
  /// is then partly updated and should be discarded.
  /// Setting `*cancel` from another thread stops a long run with RunCancelled. `progress`, when
  /// set, hears (instructions done, instructions total) every few instructions.
  VtaCounters run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t insn_count,
                  const std::atomic<bool>* cancel = nullptr,
                  const std::function<void(uint64_t, uint64_t)>& progress = {});

  const OnChipBuffers& buffers() const { return buf_; }

 private:
  const isa::Layout& l_;
  OnChipBuffers buf_;
};

}  // namespace weft::sim
