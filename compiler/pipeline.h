// The accelerator lowering pipeline (DESIGN.md §6), in one readable place. Loop-IR passes:
//
//   lower            schedule -> loop IR (tiles, cached tiles, tensorized GEMM block calls)
//   lower_alu        epilogues on accumulator tiles -> in-place ALU block calls
//   detect_dma       tile copy nests -> weft.dma_copy2d
//   expand_vthreads  virtual threads -> lockstep copies on per-thread buffers
//   allocate_onchip  on-chip tiles -> bases in the inp/wgt/acc buffers (capacity check)
//   fold_uops        block-call nests -> micro-op kernels with at most two hardware loops
//   assign_queues    each call -> the load, compute or store module
//
// then steps on the emitted accelerator program:
//
//   emit_accel       loop IR -> flat accelerator program
//   residual_init    (option) a fused residual as the accumulator's initial value
//   bias_gemm        (option) the bias added by a GEMM against constant lanes
//   store_requant    (hardware option store_requant) the epilogue's shifts and clip on the STORE
//   skip_pad_taps    (option) GEMM micro-ops that read only zero padding dropped
//   plan_tokens      dependency tokens between the modules
//
// The three rewrites are options (PipelineOptions) because they need operands only the caller
// knows (the residual and bias tensors, the bias values' bounds); each one's legality check sits
// in its pass's header and runs here, next to the pass. Each pass is its own file under
// passes/ with before/after tests. An observer sees the IR after each loop-IR pass and the
// program after each program step that ran (`weft compile ... --emit ir [--pass P]`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/accel/program.h"
#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/layout.h"

namespace weft::compiler {

/// Called after each loop-IR pass with the pass name and its result.
using PassObserver = std::function<void(const std::string& pass, const ir::Stmt& result)>;
/// Called after each program step that ran with the step name and its result.
using ProgramObserver = std::function<void(const std::string& step, const accel::Program& result)>;

/// One step of the pipeline, in order.
struct PipelineStep {
  std::string name;
  bool on_program = false;  // a step on the emitted program (else a loop-IR pass)
  bool optional = false;    // runs only when PipelineOptions asks for it
};

/// Every step of the pipeline in the order compile_accel runs them.
const std::vector<PipelineStep>& accel_pipeline_steps();
/// The loop-IR pass names in order (the program steps follow them).
const std::vector<std::string>& accel_pass_names();
/// The program step names in order (emit_accel, the rewrites, plan_tokens).
const std::vector<std::string>& accel_program_step_names();

/// residual_init's operands: the residual tensor (loaded as ACC_8BIT) and what its legality
/// check (passes::residual_init_cannot_wrap) needs to know about the sums.
struct ResidualInitOption {
  ir::Buffer residual;
  int64_t products = 0;  // int8 x int8 products summed into each output (IC x K x K)
  int64_t bias_max = 0;  // the largest |bias|
  int shift = 0;         // the epilogue's right shift
};

/// bias_gemm's operands: the bias tensor (loaded as ACC), the constant input block and the
/// `blocks` bias weight blocks (their data from passes::bias_pieces, which is the legality
/// check: a bias whose pieces do not fit the lanes gets no option).
struct BiasGemmOption {
  ir::Buffer bias, ones, weights;
  int64_t blocks = 0;
};

/// The optional program rewrites (all off by default).
struct PipelineOptions {
  std::optional<ResidualInitOption> residual_init;
  std::optional<BiasGemmOption> bias_gemm;
  bool skip_pad_taps = false;
};

/// Compiles a schedule to an accelerator program with tokens, for `layout`.
accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PassObserver& after_pass = {});

/// The same with the rewrites `options` asks for (each where its legality check allows).
accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PipelineOptions& options, const PassObserver& after_pass = {},
                             const ProgramObserver& after_step = {});

}  // namespace weft::compiler
