// Test support: seeded random GEMM-heavy programs, for the cycle model's GEMM shortcuts
// (docs/microarchitecture.md, "Shortcuts"). Where random_program() makes many small compute
// stages, these make a few long compute sequences whose GEMMs have up to thousands of
// iterations, with the corner cases the shortcuts must get right: reset GEMMs, micro-ops that
// hit the same accumulator rows at distance 1, 2 or more (inside a block and across the
// iter_in and iter_out boundaries), loop factors of 0 (weights, inputs or outputs reused
// across a loop), iter_out or iter_in of 0, empty micro-op ranges, ALU instructions (immediate
// and register) and LOAD ACC between GEMMs, and LOADs of the load module running at the same
// time into other buffer rows. Every program is token-correct and race-free: the load module
// fills the GEMMs' INP/WGT rows before a token lets compute start; its concurrent LOADs write
// rows no GEMM reads; one STORE after the last GEMM writes the accumulator rows out.
#pragma once

#include <cstdint>

#include "hardware/isa/layout.h"
#include "tests/support/program_builder.h"

namespace weft::test {

/// Knobs of the generator.
struct GemmProgramOptions {
  int min_ops = 2, max_ops = 8;  // GEMM/ALU instructions in the compute sequence
  int max_uops = 48;             // micro-ops of one instruction
  int max_iter = 12;             // iter_out and iter_in
};

/// A random GEMM-heavy program for `layout` from `seed` (same seed, same bytes).
Program random_gemm_program(const isa::Layout& layout, uint64_t seed,
                            const GemmProgramOptions& options = {});

/// One GEMM of 16000 x 16000 iterations: a program that runs far longer than any deadline a
/// test sets (timeouts, cancellation, a device stopped and used again).
Program long_gemm_program(const isa::Layout& layout);

}  // namespace weft::test
