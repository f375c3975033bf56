// The quick resource estimate of a configuration, without synthesis: the block RAM its four
// on-chip buffers need, counted by arithmetic (each array copy in the RAMB36E2 aspect ratio
// that takes the fewest blocks), and the GEMM core's MACs per cycle (about one DSP48E2 each).
// `scripts/synth/synth.sh --skip` and `weft dse` both report it (`weft config resources`);
// real figures come from yosys (synth.sh without --skip).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "hardware/isa/layout.h"

namespace weft::cost {

/// What the arithmetic gives.
struct ResourceEstimate {
  int64_t bram36 = 0;  // RAMB36E2 blocks of the UOP, INP, WGT and ACC buffers with their copies
  int64_t macs = 0;    // BATCH x BLOCK_IN x BLOCK_OUT
};

/// RAMB36E2 blocks for an array of `depth` words of `width` bits, in its best aspect ratio.
int64_t bram36_blocks(int64_t depth, int64_t width);

/// The estimate for a configuration.
ResourceEstimate estimate_resources(const isa::Layout& l);

/// The JSON synth.sh --skip writes: {"config", "family": "xcup", "synthesized": false,
/// "finished": false, "bram36", "macs"}.
nlohmann::ordered_json estimate_to_json(const isa::Layout& l, const ResourceEstimate& e);

}  // namespace weft::cost
