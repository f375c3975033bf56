// Pass allocate_onchip: gives every buffer allocated in an accelerator scope (inp, wgt, acc) a
// base in its on-chip buffer, in blocks (elements of that memory type), stacking nested
// allocations of the same scope, and checks capacity.
//
// Before: Allocate nodes in acc.inp / acc.wgt / acc.acc whose last two dimensions are the
// configuration's block (BATCH x BLOCK_IN, BLOCK_OUT x BLOCK_IN, BATCH x BLOCK_OUT), and
// accelerator calls (weft.gemm, weft.gemm_reset, weft.dma_copy2d) whose first arguments are
// block indices into their buffer operands, in order.
// After: each such Allocate is annotated `sram_base` with its base, and every call's block
// index into an allocated buffer has the base added. A buffer that does not fit is a UserError
// naming it, the sizes and the buffer's depth.
#pragma once

#include "compiler/ir/ir.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt allocate_onchip(const ir::Stmt& s, const isa::Layout& layout);

}  // namespace weft::compiler::passes
