// Pass skip_pad_taps: GEMM micro-ops that read only zero padding are dropped. A convolution's
// input tile is loaded with DMA pads (zero rows and columns around the data); the micro-op
// kernel is the same for every tile, so at the image's border some iterations multiply a
// padding block, which adds exactly 0. Such an iteration can go: for each GEMM whose
// iterations read a padding block (the last LOAD INP to write that block, in program order,
// wrote padding there), the GEMM is rewritten without those iterations: one GEMM with both
// hardware loops when the same micro-ops read padding in every loop iteration, one per inner
// (outer) iteration keeping the other loop when only that loop matters, else one per iteration
// pair, with the folded loop offsets added into the micro-ops (the additions into each
// accumulator row are only reordered: the same int32 sums). Identical kernels
// are shared in the micro-op buffer; the pass leaves the program alone when the distinct
// kernels would not fit that buffer together (reloading them would cost more than the
// dropped micro-ops save).
//
// Before: an emitted accel::Program without tokens. After: the same sums, fewer GEMM
// iterations (plan_tokens then places the tokens).
#pragma once

#include "compiler/accel/program.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::passes {

/// The pass; see above. `dropped` (optional) receives the number of iterations removed.
accel::Program skip_pad_taps(const accel::Program& program, const isa::Layout& layout,
                             int64_t* dropped = nullptr);

}  // namespace weft::compiler::passes
