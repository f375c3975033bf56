// The accelerator lowering pipeline; see pipeline.h.
#include "compiler/pipeline.h"

#include "compiler/passes/allocate_onchip.h"
#include "compiler/passes/assign_queues.h"
#include "compiler/passes/bias_gemm.h"
#include "compiler/passes/detect_dma.h"
#include "compiler/passes/emit_accel.h"
#include "compiler/passes/expand_vthreads.h"
#include "compiler/passes/fold_uops.h"
#include "compiler/passes/lower_alu.h"
#include "compiler/passes/plan_tokens.h"
#include "compiler/passes/residual_init.h"
#include "compiler/passes/skip_pad_taps.h"
#include "compiler/passes/store_requant.h"
#include "compiler/te/lower.h"

namespace weft::compiler {

const std::vector<PipelineStep>& accel_pipeline_steps() {
  static const std::vector<PipelineStep> steps = {{"lower"},
                                                  {"lower_alu"},
                                                  {"detect_dma"},
                                                  {"expand_vthreads"},
                                                  {"allocate_onchip"},
                                                  {"fold_uops"},
                                                  {"assign_queues"},
                                                  {"emit_accel", true},
                                                  {"residual_init", true, true},
                                                  {"bias_gemm", true, true},
                                                  {"store_requant", true, true},
                                                  {"skip_pad_taps", true, true},
                                                  {"plan_tokens", true}};
  return steps;
}

namespace {

std::vector<std::string> step_names(bool on_program) {
  std::vector<std::string> v;
  for (const PipelineStep& s : accel_pipeline_steps())
    if (s.on_program == on_program) v.push_back(s.name);
  return v;
}

}  // namespace

const std::vector<std::string>& accel_pass_names() {
  static const std::vector<std::string> names = step_names(false);
  return names;
}

const std::vector<std::string>& accel_program_step_names() {
  static const std::vector<std::string> names = step_names(true);
  return names;
}

accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PassObserver& after_pass) {
  return compile_accel(schedule, layout, PipelineOptions{}, after_pass);
}

accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PipelineOptions& o, const PassObserver& after_pass,
                             const ProgramObserver& after_step) {
  auto pass = [&](const char* name, ir::Stmt s) {
    if (after_pass) after_pass(name, s);
    return s;
  };
  auto step = [&](const char* name, accel::Program p) {
    if (after_step) after_step(name, p);
    return p;
  };
  ir::Stmt s = pass("lower", te::lower(schedule));
  s = pass("lower_alu", passes::lower_alu(s, layout));
  s = pass("detect_dma", passes::detect_dma(s));
  s = pass("expand_vthreads", passes::expand_vthreads(s));
  s = pass("allocate_onchip", passes::allocate_onchip(s, layout));
  s = pass("fold_uops", passes::fold_uops(s));
  s = pass("assign_queues", passes::assign_queues(s));
  accel::Program p = step("emit_accel", passes::emit_accel(s));
  // The rewrites see the program before tokens: plan_tokens places them for what they leave.
  // residual_init and bias_gemm first: each rewrites an epilogue ADD the other leaves alone.
  if (const auto& r = o.residual_init;
      r && passes::residual_init_cannot_wrap(r->products, r->bias_max, r->shift))
    p = step("residual_init", passes::residual_init(std::move(p), r->residual));
  if (const auto& b = o.bias_gemm)
    p = step("bias_gemm",
             passes::bias_gemm(std::move(p), layout, b->bias, b->ones, b->weights, b->blocks));
  // After them the epilogue ends in its shifts and clip, which the STORE can take over.
  if (layout.config.options.has(isa::HwOption::kStoreRequant))
    p = step("store_requant", passes::store_requant(p));
  // Last: after the epilogue rewrites the micro-op kernels it shares are final.
  if (o.skip_pad_taps) p = step("skip_pad_taps", passes::skip_pad_taps(std::move(p), layout));
  return step("plan_tokens", passes::plan_tokens(std::move(p)));
}

}  // namespace weft::compiler
