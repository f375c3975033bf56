// The DMA initiator of the SystemC model; see dma_port.h.
#include "simulator/systemc/dma_port.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "hardware/isa/registers.h"
#include "simulator/common/program_error.h"

namespace weft::sim::systemc {

using sc_core::sc_time;

namespace {
constexpr size_t kMaxDmiRegions = 16;
}  // namespace

void DmaPort::begin(std::vector<uint8_t>& image, uint64_t device_base, const sc_time& period,
                    bool timed, bool use_dmi) {
  image_ = &image;
  base_ = device_base;
  start_ = sc_core::sc_time_stamp();
  period_ = period;
  timed_ = timed;
  use_dmi_ = use_dmi;
  last_cycle_ = 0;
  stats_ = DmaStats{};
  qk_.reset();  // takes the global quantum as it is now
}

sc_time DmaPort::time_of(uint64_t cycle) const {
  return start_ + sc_time::from_value(period_.value() * cycle);
}

void DmaPort::advance(uint64_t cycle) {
  if (!timed_) return;
  last_cycle_ = std::max(last_cycle_, cycle);
  const sc_time at = time_of(last_cycle_);
  const sc_time now = sc_core::sc_time_stamp();
  // `now` passes `at` only when a target waited inside b_transport; then there is no lead.
  qk_.set(at > now ? at - now : sc_core::SC_ZERO_TIME);
  if (qk_.need_sync()) {
    qk_.sync();
    ++stats_.syncs;
  }
}

void DmaPort::before_read(uint64_t cycle, uint64_t addr, uint64_t nbytes) {
  advance(cycle);
  transfer(tlm::TLM_READ_COMMAND, addr, nbytes);
}

void DmaPort::after_write(uint64_t cycle, uint64_t addr, uint64_t nbytes) {
  advance(cycle);
  transfer(tlm::TLM_WRITE_COMMAND, addr, nbytes);
}

void DmaPort::invalidate(uint64_t start, uint64_t end) {
  dmi_.erase(std::remove_if(dmi_.begin(), dmi_.end(),
                            [&](const tlm::tlm_dmi& d) {
                              return d.get_start_address() <= end && start <= d.get_end_address();
                            }),
             dmi_.end());
}

void DmaPort::transfer(tlm::tlm_command cmd, uint64_t addr, uint64_t nbytes) {
  if (nbytes == 0) return;
  const bool read = cmd == tlm::TLM_READ_COMMAND;
  (read ? stats_.read_bytes : stats_.write_bytes) += nbytes;
  uint8_t* data = image_->data() + addr;
  const uint64_t dev = base_ + addr;
  if (use_dmi_) {
    for (const tlm::tlm_dmi& d : dmi_) {
      if (dev < d.get_start_address() || dev + nbytes - 1 > d.get_end_address()) continue;
      if (!(read ? d.is_read_allowed() : d.is_write_allowed())) continue;
      uint8_t* p = d.get_dmi_ptr() + (dev - d.get_start_address());
      if (read) {
        std::memcpy(data, p, nbytes);
      } else {
        std::memcpy(p, data, nbytes);
      }
      ++stats_.dmi_copies;
      return;
    }
  }
  trans_.set_command(cmd);
  trans_.set_address(dev);
  trans_.set_data_ptr(data);
  trans_.set_data_length(static_cast<unsigned>(nbytes));
  trans_.set_streaming_width(static_cast<unsigned>(nbytes));
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_byte_enable_length(0);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_time local = timed_ ? qk_.get_local_time() : sc_core::SC_ZERO_TIME;
  sc_time delay = local;
  socket_->b_transport(trans_, delay);
  ++stats_.transactions;
  if (delay > local) stats_.target_delay += delay - local;
  if (trans_.is_response_error()) {
    std::ostringstream msg;
    msg << "DMA " << (read ? "read" : "write") << " of " << nbytes << " bytes at device address 0x"
        << std::hex << dev << std::dec << " (DRAM base + " << addr
        << ") failed: " << trans_.get_response_string();
    throw ProgramError(isa::reg::kErrDramRange, ProgramError::kNoInsn, msg.str());
  }
  if (use_dmi_ && trans_.is_dmi_allowed()) {
    tlm::tlm_dmi d;
    trans_.set_address(dev);
    if (socket_->get_direct_mem_ptr(trans_, d) && d.get_dmi_ptr() != nullptr) {
      if (dmi_.size() == kMaxDmiRegions) dmi_.erase(dmi_.begin());
      dmi_.push_back(d);
      ++stats_.dmi_grants;
    }
  }
}

}  // namespace weft::sim::systemc
