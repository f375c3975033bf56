// The arithmetic resource estimate (see resource_estimate.h).
#include "hardware/cost/resource_estimate.h"

#include <algorithm>
#include <limits>

namespace weft::cost {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The RTL's data bus: 128 bits (docs/codesign.md, "RTL for a configuration file").
constexpr int64_t kBusBytes = 16;

}  // namespace

int64_t bram36_blocks(int64_t depth, int64_t width) {
  // RAMB36E2 aspect ratios: (bits wide, words deep).
  static const int64_t kModes[][2] = {{72, 512},   {36, 1024},  {18, 2048}, {9, 4096},
                                      {4, 8192},   {2, 16384},  {1, 32768}};
  int64_t best = std::numeric_limits<int64_t>::max();
  for (const auto& m : kModes) best = std::min(best, ceil_div(width, m[0]) * ceil_div(depth, m[1]));
  return best;
}

ResourceEstimate estimate_resources(const isa::Layout& l) {
  // The accumulator is read by the store path in bus-sized slices: one copy per slice of an
  // output row narrower than the bus, beside the compute module's two ports.
  const int64_t store_copies =
      l.out_elem_bytes >= kBusBytes ? 1 : kBusBytes / std::max(1, l.out_elem_bytes);
  ResourceEstimate e;
  e.bram36 = 2 * bram36_blocks(l.uop_depth, isa::IsaConstants::kUopBits) +
             bram36_blocks(l.inp_depth, int64_t{l.inp_elem_bytes} * 8) +
             bram36_blocks(l.wgt_depth, int64_t{l.wgt_elem_bytes} * 8) +
             (2 + store_copies) * bram36_blocks(l.acc_depth, int64_t{l.acc_elem_bytes} * 8);
  e.macs = l.macs_per_uop();
  return e;
}

nlohmann::ordered_json estimate_to_json(const isa::Layout& l, const ResourceEstimate& e) {
  return {{"config", l.config.name}, {"family", "xcup"}, {"synthesized", false},
          {"finished", false},       {"bram36", e.bram36}, {"macs", e.macs}};
}

}  // namespace weft::cost
