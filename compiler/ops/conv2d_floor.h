// The ISA floor of a convolution: a lower bound on the accelerator cycles of ANY program for a
// conv2d layer (with its fused epilogue) on a configuration and platform, from the timing
// contract (docs/microarchitecture.md) and the ISA (DESIGN.md section 3), not from a schedule.
//
// The compute module issues at most one GEMM or ALU iteration per cycle (a register-operand
// ALU one per two), and every output vector (one accumulator row: BATCH x BLOCK_OUT elements)
// needs on that module at least:
//   - one GEMM micro-op per (input channel block, kernel tap) it sums that reads input data (a
//     tap that reads only zero padding adds nothing and can be left out: skip_pad_taps);
//   - 1 to initialise its accumulator row (the buffer holds stale data: a reset GEMM, or a
//     LOAD on the compute module, whose filler writes at most G = max(1, W / E) rows a cycle,
//     E the bytes of an ACC_8BIT row: 1 on vta and gemm8x8, so the floor counts 1/G);
//   - 1 SHR when shift > 0 (only the ALU shifts right);
//   - 2 to clip to [relu ? 0 : -128, 127] (MAX and MIN: one ALU op bounds one side, and the
//     STORE truncates rather than saturates);
//   - 1 for a per-channel bias that is an input of the node (a GEMM against a constant-ones
//     input block, or a 2-cycle register ADD; stem_im2col folds conv1's bias into free lanes
//     of its last input block, which costs nothing);
//   - 1 for a residual (it is added after the shift and is not in the conv's input blocks, so
//     it needs its own GEMM micro-op or ALU op).
// Every byte of input, weights, residual and output must also cross the bus once (bytes / W
// cycles). The floor is the larger of the two; a layer's cycles above it are schedule
// (overlap, pipeline drains, DRAM latency, loads on the compute module), not hardware.
// `cycles_all_taps` is the same bound for a program that runs every tap of every output (one
// micro-op kernel for every tile, as the conv2d operator lowers it before skip_pad_taps).
#pragma once

#include <cstdint>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::ops {

/// The floor of one layer, in cycles, with its parts.
struct Conv2dFloor {
  int64_t vectors = 0;          // output vectors (accumulator rows) of the layer
  int64_t gemm_uops = 0;           // GEMM micro-ops of the reduction, taps on data only
  int64_t gemm_uops_all_taps = 0;  // the same with the taps that read only padding
  int64_t epilogue_ops = 0;     // per output vector: init, shift, clip, bias, residual
  int64_t memory_cycles = 0;    // bytes that must cross the bus, over its width
  int64_t cycles = 0;           // max(gemm_uops + vectors x epilogue_ops, memory_cycles)
  int64_t cycles_all_taps = 0;  // the same with gemm_uops_all_taps
};

/// The floor of `shape` with `epilogue` (epilogue.bias: the node has a bias input) on `layout`
/// with a bus of `bus_bytes` bytes per beat.
Conv2dFloor conv2d_floor(const isa::Layout& layout, const Conv2dShape& shape,
                         const Conv2dEpilogue& epilogue, int64_t bus_bytes);

}  // namespace weft::compiler::ops
