// Read DMA schedule; see read_dma.h.
#include "simulator/cycle/read_dma.h"

#include <algorithm>

namespace weft::sim::cycle {

ReadDma::ReadDma(const isa::Layout& l, const isa::Platform& p, const isa::Insn& insn,
                 uint64_t start, Datapath& dp, const std::vector<uint8_t>& dram, DramPort* port)
    : l_(l),
      insn_(insn),
      type_(insn.mem()),
      elem_(l.elem_bytes(insn.mem())),
      bus_(p.axi_data_bits / 8),
      dp_(dp),
      dram_(dram),
      port_(port),
      want_(start),
      start_(start),
      per_cycle_(std::max<int64_t>(1, bus_ / elem_)),
      w_(start),
      group_(per_cycle_) {
  if (insn.x_size == 0) {
    rows_ = cols_ = 0;
    return;
  }
  rows_ = insn.y_pad_0 + insn.y_size + insn.y_pad_1;
  cols_ = insn.x_pad_0 + insn.x_size + insn.x_pad_1;
  std::vector<Burst> tmp;
  for (int64_t y = 0; y < insn.y_size; ++y) {
    tmp.clear();
    const uint64_t addr = static_cast<uint64_t>(insn.dram_base + y * insn.x_stride) * elem_;
    split_bursts(p, addr, static_cast<uint64_t>(insn.x_size * elem_), tmp);
    for (const Burst& b : tmp) bursts_.push_back({y, b, 0});
  }
  fill();  // leading padding needs no data
}

void ReadDma::accepted(uint64_t cycle, uint64_t first_beat) {
  if (port_) {
    const Burst& b = bursts_[next_burst_].burst;
    port_->before_read(cycle, b.first_byte, b.nbytes);  // the data the filler may now read
  }
  bursts_[next_burst_].first_beat = first_beat;
  ++next_burst_;
  want_ = cycle + 1;
  fill();
}

void ReadDma::place(uint64_t ready) {
  if (group_ < per_cycle_ && ready <= w_) {
    ++group_;
    return;
  }
  const uint64_t next = w_ + 1;
  if (ready > next) {
    dram_stall_ += ready - next;
    w_ = ready;
  } else {
    w_ = next;
  }
  group_ = 1;
}

void ReadDma::fill() {
  const int64_t sram_base = insn_.sram_base;
  while (r_ < rows_) {
    const int64_t y = r_ - insn_.y_pad_0;
    const bool pad_row = y < 0 || y >= insn_.y_size;
    if (pad_row) {
      for (int64_t c = c_; c < cols_; ++c) {
        dp_.write_elem(type_, sram_base + r_ * cols_ + c, nullptr);
        place(start_ + 1);
      }
      ++r_;
      c_ = 0;
      continue;
    }
    const uint64_t row_addr = static_cast<uint64_t>(insn_.dram_base + y * insn_.x_stride) * elem_;
    while (c_ < cols_) {
      const int64_t x = c_ - insn_.x_pad_0;
      const int64_t sram = sram_base + r_ * cols_ + c_;
      if (x < 0 || x >= insn_.x_size) {
        dp_.write_elem(type_, sram, nullptr);
        place(start_ + 1);
        ++c_;
        continue;
      }
      // The element's last byte must have been requested; find its burst in this row.
      const uint64_t last = row_addr + static_cast<uint64_t>((x + 1) * elem_) - 1;
      while (row_burst_ < next_burst_ &&
             bursts_[row_burst_].burst.first_byte + bursts_[row_burst_].burst.nbytes <= last) {
        ++row_burst_;
      }
      if (row_burst_ >= next_burst_) return;  // not requested yet: wait for more grants
      const RowBurst& rb = bursts_[row_burst_];
      const uint64_t beat = last / bus_ - rb.burst.aligned_addr / bus_;
      place(rb.first_beat + beat + 1);
      dp_.write_elem(type_, sram, &dram_[row_addr + static_cast<uint64_t>(x * elem_)]);
      ++c_;
    }
    ++r_;
    c_ = 0;
    // The next data row starts with the bursts after this row's.
    while (row_burst_ < bursts_.size() && bursts_[row_burst_].row <= y) ++row_burst_;
  }
}

}  // namespace weft::sim::cycle
