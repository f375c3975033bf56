// The accelerator lowering pipeline (DESIGN.md §6), in one readable place:
//
//   lower            schedule -> loop IR (tiles, cached tiles, tensorized GEMM block calls)
//   lower_alu        epilogues on accumulator tiles -> in-place ALU block calls
//   detect_dma       tile copy nests -> weft.dma_copy2d
//   expand_vthreads  virtual threads -> lockstep copies on per-thread buffers
//   allocate_onchip  on-chip tiles -> bases in the inp/wgt/acc buffers (capacity check)
//   fold_uops        block-call nests -> micro-op kernels with at most two hardware loops
//   assign_queues    each call -> the load, compute or store module
//   emit_accel       loop IR -> flat accelerator program
//   plan_tokens      dependency tokens between the modules
//
// Each pass is its own file under passes/ with before/after tests.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/accel/program.h"
#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/layout.h"

namespace weft::compiler {

/// Called after each loop-IR pass with the pass name and its result.
using PassObserver = std::function<void(const std::string& pass, const ir::Stmt& result)>;

/// The IR pass names in order (emit_accel and plan_tokens follow them).
const std::vector<std::string>& accel_pass_names();

/// Compiles a schedule to an accelerator program with tokens, for `layout`.
accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PassObserver& after_pass = {});

/// A rewrite of the emitted program before plan_tokens (e.g. passes::residual_init).
using ProgramPass = std::function<accel::Program(const accel::Program&)>;

/// The same, with `before_tokens` applied in order between emit_accel and plan_tokens.
accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const std::vector<ProgramPass>& before_tokens,
                             const PassObserver& after_pass = {});

}  // namespace weft::compiler
