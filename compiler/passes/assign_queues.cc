// The queue assignment pass; see assign_queues.h.
#include "compiler/passes/assign_queues.h"

#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/tokens.h"

namespace weft::compiler::passes {

namespace {

isa::Module queue_of(const ir::Call& c) {
  const ir::IntrinsicInfo& info = ir::intrinsic_info(c.op);
  if (!info.instruction) {
    throw UserError("assign_queues: '" + c.name() +
                    "' is not an accelerator instruction (has fold_uops run?)");
  }
  if (info.effect != ir::Effect::kDma) return isa::Module::kCompute;  // GEMM and ALU kernels
  const ir::Buffer& dst = c.buffers.at(0);
  if (dst->scope == ir::Scope::kGlobal) return isa::Module::kStore;
  return dst->scope == ir::Scope::kInp || dst->scope == ir::Scope::kWgt ? isa::Module::kLoad
                                                                        : isa::Module::kCompute;
}

class AssignQueues : public ir::Mutator {
 protected:
  ir::Stmt mutate_Evaluate(const ir::Evaluate& n, const ir::Stmt& self) override {
    if (n.value->kind != ir::NodeKind::kCall) return self;
    const auto& c = static_cast<const ir::Call&>(*n.value);
    return ir::attr(ir::kQueueAttr, ir::imm(static_cast<int64_t>(queue_of(c))), self);
  }
};

}  // namespace

ir::Stmt assign_queues(const ir::Stmt& s) { return AssignQueues().mutate(s); }

}  // namespace weft::compiler::passes
