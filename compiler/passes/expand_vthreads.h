// Pass expand_vthreads: removes every virtual-thread loop by running its threads in lockstep.
// Each thread gets its own copy of every accelerator-scope buffer allocated inside the loop
// (so allocate_onchip places them side by side), and every unit of the body (a DMA copy, a
// loop nest around one GEMM block, a pragma'd nest, a plain statement) is repeated once per
// thread, thread after thread, inside the body's remaining loops. Consecutive units bound for
// the same module (a step's input and weight loads; the ALU passes of an epilogue) repeat as
// one group, so each thread's group stays together in that module's queue. Token planning
// then lets one thread's loads run while another computes.
//
// Before: `vthread (v, 0, T) { body }` whose loops inside do not depend on `v`. After: the
// body's loop structure, leaves interleaved over the T threads with `v` replaced by the thread
// number and per-thread buffers. A loop inside whose bounds depend on `v` is a UserError.
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt expand_vthreads(const ir::Stmt& s);

}  // namespace weft::compiler::passes
