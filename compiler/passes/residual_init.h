// Pass residual_init: a fused residual becomes the accumulator's initial value. The conv2d
// epilogue with a residual computes ((sum + bias) >> s) + r: the reduction starts from a reset
// GEMM, and after the SHR a LOAD ACC_8BIT brings the int8 residual tile into its own
// accumulator rows and a register-operand ALU ADD (two cycles per row) adds it. Since r * 2^s is
// a multiple of 2^s, ((r * 2^s + sum + bias) >> s) is the same number whenever nothing wraps at
// 32 bits, so the pass loads the residual straight into the output tile's rows where the reset
// was, shifts it left by s there (SHR with a negative immediate) and drops the ADD: per output
// row a reset (1 cycle) and an ADD (2) become a left shift (1), and the compute module's LOAD
// reads the same bytes as before. The caller must know that r * 2^s + sum + bias cannot wrap.
//
// Before: an emitted accel::Program without tokens (emit_accel), where `residual` is the DRAM
// tensor loaded as ACC_8BIT. A residual ADD is rewritten only when the pattern is exact: its
// source rows are all written by residual loads and read by nothing else, its destination rows
// are the rows of one reset GEMM, and between that reset and the ADD those rows see only
// accumulating GEMMs and ALU ADDs, then right shifts by immediates (s = their sum, at most 31).
// Anything else is left as it was. After: the same program with those rewrites (plan_tokens
// then places the tokens for it).
//
// Legality (residual_init_cannot_wrap, checked by the pipeline before the pass runs): with
// int8 operands |sum| <= 128 * 128 * products and |r * 2^s| <= 128 * 2^s, so the rewrite is
// exact when their total with the largest |bias| stays below 2^31.
#pragma once

#include <cstdint>

#include "compiler/accel/program.h"

namespace weft::compiler::passes {

/// True when r * 2^shift + sum + bias cannot wrap at 32 bits for sums of `products` int8 x int8
/// products, int8 residuals r and biases of at most `bias_max` in magnitude.
bool residual_init_cannot_wrap(int64_t products, int64_t bias_max, int shift);

/// The pass; see above. `rewritten` (optional) receives the number of ADDs removed.
accel::Program residual_init(accel::Program program, const ir::Buffer& residual,
                             int* rewritten = nullptr);

}  // namespace weft::compiler::passes
