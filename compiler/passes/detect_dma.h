// Pass detect_dma: turns every loop nest marked `pragma_dma_copy` into one 2D block copy,
// `weft.dma_copy2d(dst, src, dst_base, src_base, y_size, x_size, dst_stride, src_stride)`, the
// shape of an accelerator LOAD or STORE.
//
// Before: the nest copies whole blocks (the last two dimensions of both buffers, iterated by
// the two innermost loops in order) with affine indices. After: one call per iteration of the
// loops beyond the two just outside the block (loops of extent 1 vanish); bases and sizes are
// in blocks (elements of the memory type); `x` steps one block in both buffers, `y` steps
// `x_size` blocks in the destination tile when it is an on-chip buffer (a dense tile).
//
// A load whose value is a zero-padded view, `select(in bounds, src[...], 0)` (a padded tensor
// inlined into the copy), becomes `weft.dma_copy2d_pad(dst, src, dst_base, src_base, y_size,
// x_size, dst_stride, src_stride, y_start, y_extent, x_start, x_extent)`: the rows and
// columns start at source coordinates y_start/x_start of dimensions y_extent/x_extent long,
// and what lies outside is zero (LOAD's pads).
//
// Anything else is a UserError that names the buffer and the loop or dimension that breaks
// the pattern (for example a partial tile's guard: pad the tensor to whole tiles).
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt detect_dma(const ir::Stmt& s);

}  // namespace weft::compiler::passes
