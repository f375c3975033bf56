// The address-decoding interconnect; see router.h.
#include "simulator/systemc/router.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::sim::systemc {

Router::Router(const sc_core::sc_module_name& name) : sc_module(name), targ("targ"), init("init") {
  targ.register_b_transport(this, &Router::b_transport);
  targ.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
  targ.register_transport_dbg(this, &Router::transport_dbg);
  init.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
}

void Router::map(unsigned target, uint64_t base, uint64_t size) {
  if (size == 0 || base + (size - 1) < base) {
    throw UserError(std::string(name()) + ": the range of target " + std::to_string(target) +
                    " is empty or passes the end of the address space");
  }
  for (const Range& r : ranges_) {
    if (base <= r.base + (r.size - 1) && r.base <= base + (size - 1)) {
      throw UserError(std::string(name()) + ": the range of target " + std::to_string(target) +
                      " overlaps that of target " + std::to_string(r.target));
    }
  }
  ranges_.push_back({target, base, size});
}

const Router::Range* Router::decode(uint64_t addr, uint64_t len) const {
  for (const Range& r : ranges_) {
    if (addr >= r.base && addr - r.base < r.size && len <= r.size - (addr - r.base)) return &r;
  }
  return nullptr;
}

void Router::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const Range* r = decode(addr, std::max<uint64_t>(trans.get_data_length(), 1));
  if (r == nullptr || r->target >= init.size()) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_address(addr - r->base);
  init[r->target]->b_transport(trans, delay);
  trans.set_address(addr);
}

bool Router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t addr = trans.get_address();
  const Range* r = decode(addr, 1);
  if (r == nullptr || r->target >= init.size()) return false;
  trans.set_address(addr - r->base);
  const bool granted = init[r->target]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(addr);
  if (!granted) return false;
  // Back to initiator addresses, clipped to the range (moving the pointer with the start).
  uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
  const uint64_t last = r->size - 1;
  if (start > last) return false;
  end = std::min(end, last);
  dmi.set_start_address(r->base + start);
  dmi.set_end_address(r->base + end);
  return true;
}

unsigned Router::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  const Range* r = decode(addr, std::max<uint64_t>(trans.get_data_length(), 1));
  if (r == nullptr || r->target >= init.size()) return 0;
  trans.set_address(addr - r->base);
  const unsigned n = init[r->target]->transport_dbg(trans);
  trans.set_address(addr);
  return n;
}

void Router::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const Range& r : ranges_) {
    if (static_cast<int>(r.target) != id || start > r.size - 1) continue;
    const uint64_t s = r.base + start;
    const uint64_t e = r.base + std::min<uint64_t>(end, r.size - 1);
    for (unsigned i = 0; i < targ.size(); ++i) targ[i]->invalidate_direct_mem_ptr(s, e);
  }
}

}  // namespace weft::sim::systemc
