// Pass bias_gemm: the epilogue's per-channel bias through the GEMM instead of the ALU. The
// conv2d epilogue adds its bias with a LOAD ACC of the bias tile (on the compute module, once
// per output tile) and a register-operand ALU ADD, two cycles per output row. A GEMM micro-op
// takes one: with a constant input block (every batch row holds the lane constants
// {1, 127, 127, ...}) and one weight block per output channel block whose lanes hold the bias
// split into int8 pieces (bias = q0 + 127 (q1 + q2 + ...), bias_pieces below), acc += ones . W^T
// adds exactly the bias to every row, and int32 sums in any order are the same. The constant
// block and the bias weights are loaded once, by the load module, before their first use, into
// INP and WGT rows no other operation uses; the bias LOAD ACC goes where nothing else reads its rows.
// stem_im2col does the same for conv1 inside its own free input lanes.
//
// Before: an emitted accel::Program without tokens, where `bias` is the DRAM tensor loaded as
// ACC (packed [ocb][BATCH][BLOCK_OUT]). An ALU ADD with a register operand is rewritten when
// every source row it reads comes from one bias load whose rows map affinely onto bias blocks.
// Nothing is rewritten when the reserved rows do not fit the buffers. After: the same program
// with GEMMs for those ADDs and the two loads just before the first of them (plan_tokens then places the tokens).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/accel/program.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::passes {

/// The constant input block (BATCH x BLOCK_IN) and the bias weight blocks
/// ([ocb][BLOCK_OUT][BLOCK_IN], int8) for `oc` biases; false when a bias needs more lanes
/// than a block has (|bias| above about 127^2 (BLOCK_IN - 1)).
bool bias_pieces(const isa::Layout& layout, const int32_t* bias, int64_t oc,
                 std::vector<int8_t>* ones, std::vector<int8_t>* weights);

/// The pass; see above. `ones` is an INP tensor of one block and `weights` a WGT tensor of
/// `blocks` blocks (bias_pieces' data); `rewritten` (optional) receives the ADDs replaced.
accel::Program bias_gemm(accel::Program program, const isa::Layout& layout,
                         const ir::Buffer& bias, const ir::Buffer& ones,
                         const ir::Buffer& weights, int64_t blocks, int* rewritten = nullptr);

}  // namespace weft::compiler::passes
