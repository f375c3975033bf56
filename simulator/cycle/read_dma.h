// The read DMA of the load module and of the compute module (LOAD of any memory type):
// issues the tile's bursts one per granted cycle and fills the on-chip tile in SRAM order,
// up to max(1, bus bytes / element bytes) elements per cycle (so the filler keeps pace with
// the bus and needs no deep buffer), zeros for padding, data once its last beat has arrived
// (docs/microarchitecture.md §Load). Beat times are known when a burst is accepted, so the
// fill schedule is computed as bursts are granted. Bursts are made as they are requested and
// kept only until the filler has passed them.
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "simulator/cycle/datapath.h"
#include "simulator/memory/axi_memory.h"
#include "simulator/memory/dram_port.h"

namespace weft::sim::cycle {

/// One LOAD in flight.
class ReadDma {
 public:
  /// `port`, when set, is told of each burst's bytes before the filler reads them.
  ReadDma(const isa::Layout& l, const isa::Platform& p, const isa::Insn& insn, uint64_t start,
          Datapath& dp, const std::vector<uint8_t>& dram, DramPort* port = nullptr);

  /// Whether bursts remain to be requested.
  bool requesting() const { return req_row_ < insn_.y_size; }
  /// Whether the next burst is the last one.
  bool last_burst() const {
    return req_row_ + 1 == insn_.y_size && next_.first_byte + next_.nbytes == row_end(req_row_);
  }
  /// Earliest cycle at which the next burst may be requested.
  uint64_t want() const { return want_; }
  /// Beats of the next burst.
  uint32_t next_beats() const { return next_.beats; }
  /// Bus-aligned address of the next burst.
  uint64_t next_addr() const { return next_.aligned_addr; }
  /// The next burst was accepted at `cycle`; its first beat arrives at `first_beat`.
  void accepted(uint64_t cycle, uint64_t first_beat);
  /// The request lost arbitration or found no slot; try again at `cycle`.
  void retry_at(uint64_t cycle) { want_ = cycle; }

  /// Valid once !requesting(): the cycle the last element is written.
  uint64_t done() const { return w_; }
  /// Cycles inside [start, done] the filler waited for data.
  uint64_t dram_stall() const { return dram_stall_; }

 private:
  void fill();                 // advances the filler over every element whose data has arrived
  void place(uint64_t ready);  // schedules one element write whose data is usable at `ready`
  // The byte range of data row y in DRAM.
  uint64_t row_addr(int64_t y) const {
    return static_cast<uint64_t>(insn_.dram_base + y * insn_.x_stride) * elem_;
  }
  uint64_t row_end(int64_t y) const {
    return row_addr(y) + static_cast<uint64_t>(insn_.x_size * elem_);
  }

  const isa::Layout& l_;
  isa::Insn insn_;
  isa::MemType type_;
  int64_t elem_, bus_;
  Datapath& dp_;
  const std::vector<uint8_t>& dram_;
  DramPort* port_;

  const isa::Platform& p_;
  // Requests: the next burst, of data row req_row_.
  int64_t req_row_ = 0;
  Burst next_;
  // Accepted bursts the filler has not passed, oldest at head_.
  struct RowBurst {
    int64_t row;  // data row (0..y_size-1)
    Burst burst;
    uint64_t first_beat = 0;
  };
  std::vector<RowBurst> accepted_;
  size_t head_ = 0;
  uint64_t want_;
  uint64_t start_;
  int64_t per_cycle_;  // element writes per cycle

  // Filler position: tile row, column; writer time; accepted coverage of the current row.
  int64_t rows_, cols_, r_ = 0, c_ = 0;
  uint64_t w_;     // cycle of the current write group
  int64_t group_;  // elements written in cycle w_
  uint64_t dram_stall_ = 0;
};

}  // namespace weft::sim::cycle
