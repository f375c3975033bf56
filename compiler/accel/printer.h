// A text listing of an accelerator program (accel/program.h), one line per operation, for
// people and for tests that compare a rewrite's whole output (`weft compile ... --emit ir
// --pass bias_gemm` prints the program after each program step this way):
//
//   0: compute LOAD ACC bias[+0] 1x2 stride 2 -> acc 8
//   1: compute GEMM reset uops (0,0,0) x2 (dst 1,0 src 0,0 wgt 0,0)
//   2: compute ALU ADD uops (0,8,0) x2 (dst 1,0 src 1,0 wgt 0,0)
//   3: compute ALU SHR imm 4 uops (0,0,0) x2 (dst 1,0 src 1,0 wgt 0,0)
//   4: store STORE OUT D[+0] 1x2 stride 2 <- acc 0
//   5: push compute->store
//
// "x2" is iter_out x iter_in (x2 for 2 x 1); the factors are (out, in) per index.
#pragma once

#include <string>

#include "compiler/accel/program.h"

namespace weft::compiler::accel {

/// One operation on one line (without its index).
std::string to_string(const Op& op);
/// The whole program, one numbered line per operation.
std::string to_string(const Program& program);

}  // namespace weft::compiler::accel
