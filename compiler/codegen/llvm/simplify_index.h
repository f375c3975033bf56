// A pass run before LLVM code generation: index arithmetic simplified with the ranges of the
// loops around it. Tensor programs in blocked layouts index a packed buffer with j/16 and
// j%16; once j is split by 16 into (jo, ji) these become jo and ji, which the code generator
// can turn into contiguous vector accesses (floordiv and floormod would make them gathers).
//
// Before: integer loop IR. After: every floordiv(e, d) / floormod(e, d) with a constant d > 0
// whose e = d*Q + R (R an affine remainder that stays within one multiple of d over the loop
// ranges) is replaced by Q + q0 / R - q0*d, and min(a, b) / max(a, b) of affine operands whose
// order is fixed over the ranges by the one that wins. Loops with a non-constant min or extent
// give their variable no range (nothing that depends on it is rewritten).
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// Simplifies division, modulo, min and max of loop indices using the loop ranges.
ir::Stmt simplify_index(const ir::Stmt& s);

}  // namespace weft::compiler::codegen
