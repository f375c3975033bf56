// A plain TLM-2.0 memory for virtual platforms built around the accelerator (the example,
// the tests, the benchmark): byte-addressed, little-endian, with a fixed latency added to each
// b_transport, byte enables, debug transport, and the direct memory interface over all of it
// when allowed. A real platform brings its own; this one is what they need to run.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
// clang-format on

#include <cstdint>
#include <vector>

namespace weft::sim::systemc {

/// RAM on a target socket; addresses are offsets from its start.
class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  /// `bytes` of zeroed memory; each b_transport adds `latency` to its delay.
  Memory(const sc_core::sc_module_name& name, uint64_t bytes,
         const sc_core::sc_time& latency = sc_core::SC_ZERO_TIME);

  /// Grants (or stops granting and revokes) DMI pointers.
  void set_dmi_allowed(bool allowed);
  /// The contents, for a platform's loader or a test's backdoor.
  uint8_t* data() { return mem_.data(); }
  uint64_t size() const { return mem_.size(); }
  /// b_transport calls served so far.
  uint64_t transactions() const { return transactions_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);

  std::vector<uint8_t> mem_;
  sc_core::sc_time latency_;
  bool dmi_allowed_ = true;
  uint64_t transactions_ = 0;
};

}  // namespace weft::sim::systemc
