// Pass emit_accel: the lowered loop IR to the flat accelerator program. It walks the
// DMA-detected, allocated, micro-op-folded and queue-assigned IR, evaluating the remaining
// loops (the instruction stream is flat), and emits one operation per accelerator call in
// program order, on the module its `weft.queue` attribute names. Dependency tokens are
// planned afterwards by plan_tokens.
//
// Before: only serial loops with constant bounds, Allocate/attributes, and queue-assigned
// weft.dma_copy2d / weft.gemm_kernel / weft.gemm_reset_kernel / weft.alu_kernel calls.
// After: an accel::Program without tokens. Anything else is a UserError naming what was left
// (a pass that has not run).
#pragma once

#include "compiler/accel/program.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
accel::Program emit_accel(const ir::Stmt& s);

}  // namespace weft::compiler::passes
