// Per-channel shifts split for the accelerator's epilogue; see channel_shifts.h.
#include "compiler/ops/channel_shifts.h"

#include <algorithm>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::compiler::ops {

int max_register_shift(const isa::Layout& l) {
  int log_bits = 0;
  while ((1 << log_bits) < l.config.acc_bits) ++log_bits;
  return (1 << (log_bits - 1)) - 1;
}

bool ChannelShifts::uniform() const {
  return std::all_of(lane.begin(), lane.end(), [&](int8_t v) { return v == lane.front(); });
}

ChannelShifts split_channel_shifts(const isa::Layout& l, const std::vector<int64_t>& shifts,
                                   const std::string& what) {
  if (shifts.empty()) throw UserError(what + ": no per-channel shifts");
  for (size_t c = 0; c < shifts.size(); ++c)
    if (shifts[c] < 0 || shifts[c] > 31)
      throw UserError(what + ": channel " + std::to_string(c) + " shifts by " +
                      std::to_string(shifts[c]) + " (0 to 31 allowed)");
  const auto [lo, hi] = std::minmax_element(shifts.begin(), shifts.end());
  const int reg = max_register_shift(l);
  if (*hi - *lo > reg)
    throw UserError(what + ": the per-channel shifts range from " + std::to_string(*lo) + " to " +
                    std::to_string(*hi) + ", more than the " + std::to_string(reg) +
                    " one register SHR of the accelerator's ALU can tell apart");
  ChannelShifts s;
  s.common = static_cast<int>(std::max<int64_t>(0, *hi - reg));
  for (int64_t v : shifts) s.lane.push_back(static_cast<int8_t>(v - s.common));
  return s;
}

}  // namespace weft::compiler::ops
