// A simple address-decoding interconnect for TLM-2.0 platforms: any number of initiators bind
// to `targ`, any number of targets to `init`, and map() gives the n-th bound target an address
// range. A transaction reaches the target whose range holds all of it, with its address made
// relative to the range; one that no range holds gets TLM_ADDRESS_ERROR_RESPONSE. DMI ranges
// and invalidations are translated back to initiator addresses; debug transport is forwarded.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
// clang-format on

#include <cstdint>
#include <string>
#include <vector>

namespace weft::sim::systemc {

/// The interconnect.
class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> targ;     // initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<Router> init;  // targets bind here

  explicit Router(const sc_core::sc_module_name& name);

  /// Routes [base, base + size) to the target bound `target`-th to `init` (0 first).
  /// UserError when the range is empty, wraps, or overlaps an earlier one.
  void map(unsigned target, uint64_t base, uint64_t size);

 private:
  struct Range {
    unsigned target;
    uint64_t base, size;
  };
  // The range holding [addr, addr + len), or nullptr.
  const Range* decode(uint64_t addr, uint64_t len) const;

  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

  std::vector<Range> ranges_;
};

}  // namespace weft::sim::systemc
