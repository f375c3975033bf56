// Pass emit_accel: the last step of accelerator lowering. It walks the lowered, DMA-detected,
// allocated and micro-op-folded loop IR, evaluating the remaining loops (the instruction
// stream is flat), and emits the accelerator operations in program order. Token planning is
// done here, on the flattened program: it tracks, for every on-chip block, the last operation
// that wrote it and the last that read it, and when an operation depends on an earlier one of
// a neighbouring module (read after write, write after read or write), it makes it wait for
// the latest such producer: a push right after the producer, a pop right before the consumer.
// Waiting for the latest producer implies every earlier one (modules run in order), and pops
// of one queue then consume pushes in the order they were made.
//
// Before: only serial loops with constant bounds, Allocate/attributes, and weft.dma_copy2d /
// weft.gemm_kernel / weft.gemm_reset_kernel calls. After: an accel::Program. Anything else is
// a UserError naming what was left (a pass that has not run).
#pragma once

#include "compiler/accel/program.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
accel::Program emit_accel(const ir::Stmt& s);

}  // namespace weft::compiler::passes
