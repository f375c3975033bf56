// The DRAM/AXI memory model of a platform (docs/microarchitecture.md §Memory), shared by the
// cycle model and the RTL testbench so that both see exactly the same memory timing. It is a
// timing model over the DRAM image: one read channel whose beats return in request order,
// one write channel, and bounded outstanding bursts on each.
#pragma once

#include <cstdint>
#include <cstddef>
#include <vector>
#include <vector>

#include "hardware/isa/spec.h"
#include "simulator/memory/fault_plan.h"

namespace weft::sim {

/// One AXI burst: `beats` bus words starting at the bus-aligned address `aligned_addr`,
/// carrying the bytes [first_byte, first_byte + nbytes) of a transfer.
struct Burst {
  uint64_t aligned_addr = 0;
  uint32_t beats = 0;
  uint64_t first_byte = 0;
  uint64_t nbytes = 0;
};

/// The first burst of the bytes [addr, end), end > addr: bus-aligned beats, at most
/// `max_burst_beats` beats, never crossing a 4 KiB boundary (AXI4 rules).
Burst first_burst(const isa::Platform& p, uint64_t addr, uint64_t end);
/// Splits a byte range into such bursts. Appends to `out`.
void split_bursts(const isa::Platform& p, uint64_t addr, uint64_t nbytes, std::vector<Burst>& out);

/// Read/write channel timing with bounded outstanding bursts.
class AxiMemory {
 public:
  explicit AxiMemory(const isa::Platform& p);

  /// The platform this model times.
  const isa::Platform& platform() const { return p_; }

  /// The earliest cycle >= `cycle` at which a read burst can be accepted (fewer than
  /// max_outstanding_reads bursts whose last beat is at or after that cycle).
  uint64_t next_read_slot(uint64_t cycle);
  /// Accepts a read burst of `beats` at `cycle` (which must be a free slot) and returns the
  /// cycle of its first data beat; the others follow on consecutive cycles, after every beat
  /// of earlier bursts (in-order return, one beat per cycle).
  /// `source` names the requester for the message of an injected fault.
  uint64_t accept_read(uint64_t cycle, uint32_t beats, const BurstSource& source = {});

  /// The earliest cycle >= `cycle` at which a write burst can start.
  uint64_t next_write_slot(uint64_t cycle);
  /// Accepts a write burst whose address and first data beat are at `cycle` and whose beats
  /// follow on consecutive cycles; returns the cycle of its write response.
  uint64_t accept_write(uint64_t cycle, uint32_t beats, const BurstSource& source = {});

  /// Injects the faults of `plan` (kept by pointer; nullptr or empty: none) into the bursts
  /// accepted from now on: a burst a fault hits throws BusFault from accept_read/accept_write.
  void set_faults(const FaultPlan* plan) { faults_ = plan && !plan->empty() ? plan : nullptr; }

  /// Traffic so far: bursts and beats on each channel.
  uint64_t read_bursts() const { return read_bursts_; }
  uint64_t read_beats() const { return read_beats_; }
  uint64_t write_bursts() const { return write_bursts_; }
  uint64_t write_beats() const { return write_beats_; }

 private:
  // Throws BusFault when a fault of the plan hits this burst (the index-th on its channel).
  void inject(AxiChannel ch, uint64_t cycle, uint64_t answer, uint32_t beats, uint64_t index,
              const BurstSource& source) const;

  // The cycles of the outstanding bursts of one channel, oldest first: a queue in one vector
  // (a std::deque's segmented indexing showed in the cycle model's profile of ViT-B/16, whose
  // 9.3 M short read bursts each ask for a slot).
  class Outstanding {
   public:
    // Drops the bursts whose cycle is before `cycle` (from the front, as they are in order).
    void drop_before(uint64_t cycle) {
      while (head_ < v_.size() && v_[head_] < cycle) ++head_;
      if (head_ == v_.size()) v_.clear(), head_ = 0;
    }
    size_t size() const { return v_.size() - head_; }
    uint64_t operator[](size_t i) const { return v_[head_ + i]; }
    void push_back(uint64_t c) {
      if (head_ >= 64 && 2 * head_ >= v_.size()) {  // the dropped half: reuse its room
        v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      v_.push_back(c);
    }

   private:
    std::vector<uint64_t> v_;
    size_t head_ = 0;
  };

  isa::Platform p_;
  const FaultPlan* faults_ = nullptr;
  uint64_t r_free_ = 0;          // first cycle the read data channel is free
  Outstanding read_last_beat_;   // per outstanding read burst, non-decreasing
  Outstanding write_resp_;       // per outstanding write burst, non-decreasing
  uint64_t read_bursts_ = 0, read_beats_ = 0, write_bursts_ = 0, write_beats_ = 0;
};

}  // namespace weft::sim
