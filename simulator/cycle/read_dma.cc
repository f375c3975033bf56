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
      p_(p),
      want_(start),
      start_(start),
      per_cycle_(std::max<int64_t>(1, bus_ / elem_)),
      w_(start),
      group_(per_cycle_) {
  if (insn.x_size == 0) {
    rows_ = cols_ = 0;
    req_row_ = insn.y_size;  // nothing to request
    return;
  }
  rows_ = insn.y_pad_0 + insn.y_size + insn.y_pad_1;
  cols_ = insn.x_pad_0 + insn.x_size + insn.x_pad_1;
  if (requesting()) next_ = first_burst(p_, row_addr(0), row_end(0));
  fill();  // leading padding needs no data
}

void ReadDma::accepted(uint64_t cycle, uint64_t first_beat) {
  if (port_) port_->before_read(cycle, next_.first_byte, next_.nbytes);  // the filler may read it
  if (head_ == accepted_.size()) {  // the filler has passed every earlier burst
    accepted_.clear();
    head_ = 0;
  }
  accepted_.push_back({req_row_, next_, first_beat});
  const uint64_t pos = next_.first_byte + next_.nbytes;
  if (pos < row_end(req_row_)) {
    next_ = first_burst(p_, pos, row_end(req_row_));
  } else if (++req_row_ < insn_.y_size) {
    next_ = first_burst(p_, row_addr(req_row_), row_end(req_row_));
  }
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
    const uint64_t addr = row_addr(y);
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
      const uint64_t last = addr + static_cast<uint64_t>((x + 1) * elem_) - 1;
      while (head_ < accepted_.size() &&
             accepted_[head_].burst.first_byte + accepted_[head_].burst.nbytes <= last) {
        ++head_;
      }
      if (head_ == accepted_.size()) return;  // not requested yet: wait for more grants
      const RowBurst& rb = accepted_[head_];
      const uint64_t beat = last / bus_ - rb.burst.aligned_addr / bus_;
      place(rb.first_beat + beat + 1);
      dp_.write_elem(type_, sram, &dram_[addr + static_cast<uint64_t>(x * elem_)]);
      ++c_;
    }
    ++r_;
    c_ = 0;
    // The next data row starts with the bursts after this row's.
    while (head_ < accepted_.size() && accepted_[head_].row <= y) ++head_;
  }
}

}  // namespace weft::sim::cycle
