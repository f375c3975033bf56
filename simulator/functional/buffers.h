// The on-chip buffers of the functional model: micro-ops, inputs, weights and the int32
// accumulator (which STORE narrows to int8; there is no separate output buffer).
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/layout.h"

namespace weft::sim {

/// On-chip state. Zero at construction; afterwards holds whatever the last run left.
struct OnChipBuffers {
  explicit OnChipBuffers(const isa::Layout& l)
      : uop(static_cast<size_t>(l.uop_depth)),
        inp(static_cast<size_t>(l.inp_depth * l.inp_elem_bytes)),
        wgt(static_cast<size_t>(l.wgt_depth * l.wgt_elem_bytes)),
        acc(static_cast<size_t>(l.acc_depth * l.config.batch() * l.config.block_out())) {}

  std::vector<uint32_t> uop;  // raw micro-op words
  std::vector<int8_t> inp;    // [depth][BATCH][BLOCK_IN]
  std::vector<int8_t> wgt;    // [depth][BLOCK_OUT][BLOCK_IN]
  std::vector<int32_t> acc;   // [depth][BATCH][BLOCK_OUT]
};

}  // namespace weft::sim
