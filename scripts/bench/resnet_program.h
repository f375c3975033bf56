// ResNet-18 convolution layers as simulator benchmark programs: a layer compiled by the
// tensor compiler (knobs chosen analytically, two virtual threads) and placed in one DRAM
// image with random data, for timing the cycle model on real compiler output.
#pragma once

#include <cstdint>
#include <string>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "scripts/bench/gemm_program.h"

namespace weft::bench {

/// Layer `name` (C1 .. C12) at the configuration's batch (DESIGN.md §7: the GEMM batch, so 8
/// on gemm8x8 and 1 on vta). UserError for an unknown name.
BenchProgram resnet18_layer(const isa::Layout& l, const isa::Platform& p, const std::string& name,
                            int64_t vthreads, uint32_t seed);

}  // namespace weft::bench
