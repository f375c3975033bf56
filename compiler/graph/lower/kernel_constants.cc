// Packing a kernel's constants; see kernel_constants.h.
#include "compiler/graph/lower/kernel_constants.h"

#include <cstring>

namespace weft::compiler::graph {

std::vector<uint8_t> pack_bias_tile(const isa::Layout& l, const int32_t* bias, int64_t oc,
                                    int64_t ocb) {
  const int64_t B = l.config.batch(), BO = l.config.block_out();
  std::vector<int32_t> pb(bias ? static_cast<size_t>(ocb * B * BO) : 0, 0);
  for (int64_t o = 0; bias && o < oc; ++o)
    for (int64_t r = 0; r < B; ++r) pb[((o / BO) * B + r) * BO + o % BO] = bias[o];
  std::vector<uint8_t> bytes(pb.size() * 4);
  if (!pb.empty()) std::memcpy(bytes.data(), pb.data(), bytes.size());
  return bytes;
}

std::vector<uint8_t> pack_shift_tile(const isa::Layout& l, const std::vector<int8_t>& lane,
                                     int64_t ocb) {
  const int64_t B = l.config.batch(), BO = l.config.block_out();
  std::vector<uint8_t> bytes(static_cast<size_t>(ocb * B * BO), 0);
  for (int64_t o = 0; o < static_cast<int64_t>(lane.size()); ++o)
    for (int64_t r = 0; r < B; ++r)
      bytes[((o / BO) * B + r) * BO + o % BO] = static_cast<uint8_t>(lane[o]);
  return bytes;
}

}  // namespace weft::compiler::graph
