// Pass detect_dma: turns every loop nest marked `pragma_dma_copy` into one 2D block copy,
// `weft.dma_copy2d(dst, src, dst_base, src_base, y_size, x_size, dst_stride, src_stride)`, the
// shape of an accelerator LOAD or STORE.
//
// Before: the nest copies whole blocks (the last two dimensions of both buffers, iterated by
// the two innermost loops in order) under at most two further loops, with affine indices.
// After: one call per nest; bases and sizes are in blocks (elements of the memory type);
// `x` steps one block in both buffers, `y` steps `x_size` blocks in the destination tile when
// it is an on-chip buffer (a dense tile). Anything else is a UserError that names the buffer
// and the loop or dimension that breaks the pattern (for example a partial tile's guard: pad
// the tensor to whole tiles).
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt detect_dma(const ir::Stmt& s);

}  // namespace weft::compiler::passes
