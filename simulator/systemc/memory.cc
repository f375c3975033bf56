// The TLM-2.0 memory; see memory.h.
#include "simulator/systemc/memory.h"

#include <algorithm>
#include <cstring>

namespace weft::sim::systemc {

Memory::Memory(const sc_core::sc_module_name& name, uint64_t bytes, const sc_core::sc_time& latency)
    : sc_module(name), socket("socket"), mem_(bytes, 0), latency_(latency) {
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
}

void Memory::set_dmi_allowed(bool allowed) {
  if (dmi_allowed_ && !allowed) socket->invalidate_direct_mem_ptr(0, ~sc_dt::uint64{0});
  dmi_allowed_ = allowed;
}

void Memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  if (addr > mem_.size() || len > mem_.size() - addr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.get_streaming_width() < len) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  ++transactions_;
  uint8_t* mem = mem_.data() + addr;
  uint8_t* data = trans.get_data_ptr();
  const unsigned char* be = trans.get_byte_enable_ptr();
  const unsigned be_len = trans.get_byte_enable_length();
  if (trans.is_read()) {
    if (be == nullptr) {
      std::memcpy(data, mem, len);
    } else {
      for (uint64_t i = 0; i < len; ++i) {
        if (be_len && be[i % be_len] == TLM_BYTE_ENABLED) data[i] = mem[i];
      }
    }
  } else if (trans.is_write()) {
    if (be == nullptr) {
      std::memcpy(mem, data, len);
    } else {
      for (uint64_t i = 0; i < len; ++i) {
        if (be_len && be[i % be_len] == TLM_BYTE_ENABLED) mem[i] = data[i];
      }
    }
  }
  delay += latency_;
  trans.set_dmi_allowed(dmi_allowed_);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  if (!dmi_allowed_ || trans.get_address() >= mem_.size()) return false;
  dmi.set_dmi_ptr(mem_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(mem_.size() - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(latency_);
  dmi.set_write_latency(latency_);
  return true;
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  if (addr >= mem_.size()) return 0;
  const uint64_t n = std::min<uint64_t>(trans.get_data_length(), mem_.size() - addr);
  if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), mem_.data() + addr, n);
  } else if (trans.is_write()) {
    std::memcpy(mem_.data() + addr, trans.get_data_ptr(), n);
  } else {
    return 0;
  }
  return static_cast<unsigned>(n);
}

}  // namespace weft::sim::systemc
