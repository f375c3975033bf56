// Requantization on the store path (hardware option store_requant, options.h): a STORE that
// narrows each accumulator lane as clamp(acc >> shift, lo, hi) instead of keeping its low 8
// bits, so that a layer's epilogue shift and clip cost no compute-module cycles.
//
// The encoding reuses a STORE's four 4-bit pad fields, which a plain STORE must leave 0 (a
// STORE does not pad). Read as one 16-bit word p = y_pad_0 | y_pad_1 << 4 | x_pad_0 << 8 |
// x_pad_1 << 12:
//   bit 0       on (0: truncation, and every other bit must be 0)
//   bits 5..1   shift, 0..31 (arithmetic)
//   bit 6       lo = 0 (a ReLU); else lo = -128
//   bit 7       reserved, 0
//   bits 15..8  hi, a signed 8-bit value, at least lo
// The RTL's store module (hardware/rtl/weft_store.sv) decodes the same bits.
#pragma once

#include <cstdint>
#include <string>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::isa {

struct StoreRequant {
  bool on = false;
  int shift = 0;   // 0..31
  int lo = -128;   // -128 or 0
  int hi = 127;    // lo..127

  bool operator==(const StoreRequant& o) const {
    return on == o.on && (!on || (shift == o.shift && lo == o.lo && hi == o.hi));
  }
  bool operator!=(const StoreRequant& o) const { return !(*this == o); }

  /// One lane: the low 8 bits (off) or the clamped, shifted value (on).
  int8_t narrow(int32_t acc) const {
    if (!on) return static_cast<int8_t>(static_cast<uint8_t>(acc));
    const int32_t v = acc >> shift;
    return static_cast<int8_t>(v < lo ? lo : (v > hi ? hi : v));
  }
};

/// The 16-bit word of a STORE's pad fields (above).
uint16_t store_requant_bits(const StoreRequant& r);
/// Writes `r` into a STORE's pad fields. A value outside the ranges above is an
/// InternalError (the compiler builds these; user programs are checked on decode).
void set_store_requant(Insn& insn, const StoreRequant& r);
/// Reads the 16-bit word. Returns false and says why in `why` when it is not a valid
/// requantization (a reserved bit, lo above hi, bits without `on`, more than 16 bits).
bool store_requant_from_bits(int64_t p, StoreRequant* r, std::string* why);
/// Reads a STORE's pad fields. Returns false and says why in `why` when they are not a valid
/// requantization (a reserved bit, lo above hi, bits without `on`).
bool decode_store_requant(const Insn& insn, StoreRequant* r, std::string* why);
/// What STORE `insn` does on layout `l`: its requantization where `l` has the option and the
/// fields are valid (the engines validate programs first), else truncation.
StoreRequant store_requant_of(const Layout& l, const Insn& insn);

}  // namespace weft::isa
