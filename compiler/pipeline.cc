// The accelerator lowering pipeline; see pipeline.h.
#include "compiler/pipeline.h"

#include "compiler/passes/allocate_onchip.h"
#include "compiler/passes/assign_queues.h"
#include "compiler/passes/detect_dma.h"
#include "compiler/passes/emit_accel.h"
#include "compiler/passes/expand_vthreads.h"
#include "compiler/passes/fold_uops.h"
#include "compiler/passes/lower_alu.h"
#include "compiler/passes/plan_tokens.h"
#include "compiler/te/lower.h"

namespace weft::compiler {

const std::vector<std::string>& accel_pass_names() {
  static const std::vector<std::string> names = {
      "lower",           "lower_alu", "detect_dma",   "expand_vthreads",
      "allocate_onchip", "fold_uops", "assign_queues"};
  return names;
}

accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const PassObserver& after_pass) {
  return compile_accel(schedule, layout, std::vector<ProgramPass>{}, after_pass);
}

accel::Program compile_accel(te::Schedule& schedule, const isa::Layout& layout,
                             const std::vector<ProgramPass>& before_tokens,
                             const PassObserver& after_pass) {
  auto step = [&](const char* name, ir::Stmt s) {
    if (after_pass) after_pass(name, s);
    return s;
  };
  ir::Stmt s = step("lower", te::lower(schedule));
  s = step("lower_alu", passes::lower_alu(s, layout));
  s = step("detect_dma", passes::detect_dma(s));
  s = step("expand_vthreads", passes::expand_vthreads(s));
  s = step("allocate_onchip", passes::allocate_onchip(s, layout));
  s = step("fold_uops", passes::fold_uops(s));
  s = step("assign_queues", passes::assign_queues(s));
  accel::Program p = passes::emit_accel(s);
  for (const ProgramPass& pass : before_tokens) p = pass(p);
  return passes::plan_tokens(p);
}

}  // namespace weft::compiler
