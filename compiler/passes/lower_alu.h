// Pass lower_alu: the quantization epilogue onto the tensor ALU. A tile copy out of the
// accumulator (a `pragma_dma_copy` nest) whose stored value applies integer operations to the
// accumulator value, e.g. `D[..] = int8(min(max(C.acc[..] >> 8, -128), 127))`, becomes one
// in-place ALU pass over the tile per operation, innermost operation first, followed by the
// plain narrowing copy `D[..] = int8(C.acc[..])` for detect_dma. Each ALU pass is a nest over
// the tile's blocks around one block call
// `weft.alu(ACC, ACC; dst_block, src_block, opcode, use_imm, imm)`, which fold_uops turns
// into an ALU instruction. A shift right by more than the ALU's largest immediate shift is
// split into several passes.
//
// Supported: min, max, add and mul with a constant operand or with a second accumulator tile
// read block for block (e.g. a bias loaded into the accumulator: ALU with use_imm = 0), shift
// right by a constant, and shift right by a second accumulator tile of per-lane amounts (the
// ALU reads each amount's low log2(accumulator bits) bits as a signed number, so the amounts
// must lie in 0..15 for int32: per-channel requantization, compiler/ops/channel_shifts.h).
// Anything else is a UserError that names the expression.
// Copies whose value is a plain or narrowing load are left alone.
#pragma once

#include "compiler/ir/ir.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt lower_alu(const ir::Stmt& s, const isa::Layout& layout);

}  // namespace weft::compiler::passes
