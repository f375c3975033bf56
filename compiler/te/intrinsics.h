// Tensor intrinsics that a schedule can tensorize to. The GEMM intrinsic of an accelerator
// configuration multiplies one BATCH x BLOCK_IN input block by one BLOCK_OUT x BLOCK_IN weight
// block into one BATCH x BLOCK_OUT accumulator block; lowering replaces the three innermost
// loops of a matching stage by `weft.gemm(ACC, INP, WGT, acc, inp, wgt)` calls (buffer
// operands, then block indices into them) and its initialisation by
// `weft.gemm_reset(ACC, acc)`.
#pragma once

#include <string>

#include "hardware/isa/layout.h"

namespace weft::compiler::te {

/// The block shape of a configuration's GEMM instruction.
struct GemmIntrinsic {
  int64_t batch = 1, block_in = 16, block_out = 16;
  std::string name = "weft.gemm";
  std::string reset_name = "weft.gemm_reset";
};

/// The GEMM intrinsic of a configuration.
GemmIntrinsic gemm_intrinsic(const isa::Layout& layout);

}  // namespace weft::compiler::te
