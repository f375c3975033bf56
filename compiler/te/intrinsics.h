// Tensor intrinsics that a schedule can tensorize to. The GEMM intrinsic of an accelerator
// configuration multiplies one BATCH x BLOCK_IN input block by one BLOCK_OUT x BLOCK_IN weight
// block into one BATCH x BLOCK_OUT accumulator block; lowering replaces the three innermost
// loops of a matching stage by `update(ACC, INP, WGT, acc, inp, wgt)` calls (buffer operands,
// then block indices into them) and its initialisation by `reset(ACC, acc)`: weft.gemm and
// weft.gemm_reset on the accelerator, the tensor-core calls (16x16x16) on the GPU.
#pragma once

#include "compiler/ir/intrinsics.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::te {

/// The block shape of a configuration's GEMM instruction.
struct GemmIntrinsic {
  int64_t batch = 1, block_in = 16, block_out = 16;
  ir::Intrinsic update = ir::Intrinsic::kGemm;
  ir::Intrinsic reset = ir::Intrinsic::kGemmReset;
};

/// The GEMM intrinsic of a configuration.
GemmIntrinsic gemm_intrinsic(const isa::Layout& layout);

}  // namespace weft::compiler::te
