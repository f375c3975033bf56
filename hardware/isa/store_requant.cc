// The store path's requantization fields; see store_requant.h.
#include "hardware/isa/store_requant.h"

#include "hardware/isa/errors.h"

namespace weft::isa {

uint16_t store_requant_bits(const StoreRequant& r) {
  if (!r.on) return 0;
  if (r.shift < 0 || r.shift > 31 || (r.lo != 0 && r.lo != -128) || r.hi < r.lo || r.hi > 127) {
    throw InternalError("store requantization out of range: shift " + std::to_string(r.shift) +
                        ", clamp [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
  }
  return static_cast<uint16_t>(1u | static_cast<unsigned>(r.shift) << 1 |
                               (r.lo == 0 ? 1u : 0u) << 6 |
                               static_cast<unsigned>(static_cast<uint8_t>(r.hi)) << 8);
}

void set_store_requant(Insn& insn, const StoreRequant& r) {
  const uint16_t p = store_requant_bits(r);
  insn.y_pad_0 = p & 0xf;
  insn.y_pad_1 = (p >> 4) & 0xf;
  insn.x_pad_0 = (p >> 8) & 0xf;
  insn.x_pad_1 = (p >> 12) & 0xf;
}

bool decode_store_requant(const Insn& insn, StoreRequant* r, std::string* why) {
  return store_requant_from_bits(
      insn.y_pad_0 | insn.y_pad_1 << 4 | insn.x_pad_0 << 8 | insn.x_pad_1 << 12, r, why);
}

StoreRequant store_requant_of(const Layout& l, const Insn& insn) {
  StoreRequant r;
  std::string unused;
  if (l.config.options.has(HwOption::kStoreRequant) && !decode_store_requant(insn, &r, &unused))
    r = StoreRequant{};
  return r;
}

bool store_requant_from_bits(int64_t p, StoreRequant* r, std::string* why) {
  *r = StoreRequant{};
  if (p == 0) return true;
  if (p < 0 || p > 0xffff) {
    *why = "requantization word " + std::to_string(p) + " is wider than 16 bits";
    return false;
  }
  if ((p & 1) == 0) {
    *why = "requantization bits without its 'on' bit (pad word " + std::to_string(p) + ")";
    return false;
  }
  if (p & 0x80) {
    *why = "reserved bit 7 of the requantization word is set";
    return false;
  }
  r->on = true;
  r->shift = static_cast<int>((p >> 1) & 31);
  r->lo = (p & 0x40) ? 0 : -128;
  r->hi = static_cast<int8_t>(static_cast<uint8_t>((p >> 8) & 0xff));
  if (r->hi < r->lo) {
    *why = "requantization clamp [" + std::to_string(r->lo) + ", " + std::to_string(r->hi) +
           "] is empty";
    return false;
  }
  return true;
}

}  // namespace weft::isa
