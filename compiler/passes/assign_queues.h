// Pass assign_queues: decides which module's command queue runs each accelerator call, the
// ISA's routing (DESIGN.md §3): loads into the input and weight buffers go to the load
// module; loads into the accumulator (and micro-op loads), GEMM and ALU kernels to compute;
// stores to store. Each call is wrapped in `attr weft.queue = <module>` (ir::kQueueAttr; 0
// load, 1 compute, 2 store), which emit_accel and token planning follow.
//
// Before: folded IR (fold_uops has run). After: the same with every call queue-annotated. A
// call it does not know is a UserError.
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt assign_queues(const ir::Stmt& s);

}  // namespace weft::compiler::passes
