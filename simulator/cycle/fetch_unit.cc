// Instruction fetch; see fetch_unit.h.
#include "simulator/cycle/fetch_unit.h"

#include <algorithm>
#include <vector>

#include "hardware/isa/encoding.h"

namespace weft::sim::cycle {

FetchUnit::FetchUnit(const isa::Layout& l, const isa::Platform& p, uint64_t insn_addr,
                     uint64_t count)
    : p_(p),
      addr_(insn_addr),
      count_(count),
      capacity_(static_cast<uint64_t>(l.config.fetch_fifo_depth)) {
  plan_next();
}

void FetchUnit::plan_next() {
  if (requested_ == count_) return;
  // The first burst of the rest of the stream, cut to whole instructions and to FIFO size.
  std::vector<Burst> bursts;
  const uint64_t start = addr_ + requested_ * isa::kInsnBytes;
  const uint64_t n = std::min(count_ - requested_, capacity_);
  split_bursts(p_, start, n * isa::kInsnBytes, bursts);
  next_count_ = std::max<uint64_t>(1, bursts.front().nbytes / isa::kInsnBytes);
  bursts.clear();
  split_bursts(p_, start, next_count_ * isa::kInsnBytes, bursts);
  next_ = bursts.front();
  if (bursts.size() > 1) {
    // An instruction straddles a burst limit: fetch it alone, in one burst of its beats.
    next_count_ = 1;
    const uint64_t w = static_cast<uint64_t>(p_.axi_data_bits / 8);
    next_.beats = static_cast<uint32_t>((start + isa::kInsnBytes - 1) / w - start / w + 1);
    next_.nbytes = isa::kInsnBytes;
  }
}

bool FetchUnit::wants_burst() const {
  return requested_ < count_ && fifo_.size() + next_count_ <= capacity_;
}

void FetchUnit::accepted(uint64_t cycle, uint64_t first_beat) {
  const uint64_t w = static_cast<uint64_t>(p_.axi_data_bits / 8);
  for (uint64_t k = 0; k < next_count_; ++k) {
    const uint64_t index = requested_ + k;
    const uint64_t last = addr_ + (index + 1) * isa::kInsnBytes - 1;
    fifo_.push_back({index, first_beat + (last / w - next_.aligned_addr / w) + 1});
  }
  requested_ += next_count_;
  want_ = cycle + 1;
  plan_next();
}

}  // namespace weft::sim::cycle
