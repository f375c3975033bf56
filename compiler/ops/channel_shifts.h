// Per-output-channel requantization shifts on the accelerator. With per-channel weight scales
// every output channel c has its own shift s_c. The tensor ALU's SHR takes its amount from its
// operand, which may be an accumulator tile: a vector of per-lane shift amounts loaded into the
// accumulator like the bias lets one SHR apply a different shift to every output channel. The
// amount is read from the operand's low log2(accumulator bits) bits as a signed number (0..15
// for int32 right shifts), so the shifts are split into a part common to all channels, applied
// first with immediate SHRs, and per-lane remainders in [0, 15]: floor shifts compose,
// (x >> a) >> r == x >> (a + r), so the result is the reference's x >> s_c exactly. The common
// part is chosen as small as the remainders allow (one register SHR does the most work).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"

namespace weft::compiler::ops {

/// Per-channel shifts as one common immediate shift and per-lane register shifts.
struct ChannelShifts {
  int common = 0;                // every channel: x >> common (immediate SHRs)
  std::vector<int8_t> lane;      // channel c then: x >> lane[c] (one SHR with a register operand)
  /// Every channel shifts by the same amount: one immediate shift does it (no shift tile).
  bool uniform() const;
};

/// The largest right shift one register-operand SHR applies (15 for int32 accumulators).
int max_register_shift(const isa::Layout& layout);

/// Splits `shifts` (one per output channel, each 0..31); UserError naming `what` when a shift
/// is out of range or the channels' shifts spread over more than max_register_shift.
ChannelShifts split_channel_shifts(const isa::Layout& layout, const std::vector<int64_t>& shifts,
                                   const std::string& what);

}  // namespace weft::compiler::ops
