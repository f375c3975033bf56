// Pass skip_pad_taps: GEMM micro-ops that read only zero padding are dropped. A convolution's
// input tile is loaded with DMA pads (zero rows and columns around the data); the micro-op
// kernel is the same for every tile, so at the image's border some iterations multiply a
// padding block, which adds exactly 0. Such an iteration can go: for each GEMM whose
// iterations read a padding block (the last LOAD INP to write that block, in program order,
// wrote padding there), the micro-ops are put in classes by the (outer, inner) loop
// iterations in which they read padding; each class keeps a set of loop iterations that
// splits into rectangles (runs of equal rows by runs of equal columns), and each kept
// rectangle becomes one GEMM with both hardware loops over it, its origin folded into the
// micro-ops. On a convolution tile (micro-ops = output pixels, loops = taps) at the image's
// corner: the interior pixels run every tap in one GEMM, each border row or column of pixels
// a rectangle of taps, so each micro-op is held about once. The additions into each
// accumulator row are only reordered: the same int32 sums. Identical kernels are shared in
// the micro-op buffer; every distinct kernel must fit it together (reloading kernels would
// cost more than the dropped micro-ops save), so where they would not, only the rewrites
// (grouped by identical kernels) that save the most iterations and fit are taken.
//
// Before: an emitted accel::Program without tokens. After: the same sums, fewer GEMM
// iterations (plan_tokens then places the tokens).
#pragma once

#include "compiler/accel/program.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::passes {

/// The pass; see above. `dropped` (optional) receives the number of iterations removed.
accel::Program skip_pad_taps(accel::Program program, const isa::Layout& layout,
                             int64_t* dropped = nullptr);

}  // namespace weft::compiler::passes
