// Internal to compiler/codegen/llvm: the analyses the LLVM code generator makes of loop IR
// before it builds anything (no LLVM headers here): whether a vectorized loop's body can be
// turned into lane-wide operations, and how an access moves with the lane variable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// d(e)/d(v) when `e` is affine in `v` (other subterms may be anything not mentioning `v`).
std::optional<int64_t> coef_of(const ir::Expr& e, const ir::VarObj* v);
/// The row-major flat offset of an access, each index as int64.
ir::Expr flat_offset(const ir::Buffer& b, const std::vector<ir::Expr>& idx);
/// Whether the CPU backend implements the intrinsic.
bool cpu_implements(ir::Intrinsic op);
/// Why the body of the vectorized loop `n` cannot be turned into lane-wide operations (nested
/// loops, an allocation, an intrinsic the backend does not implement, a lane-dependent value
/// stored to one address, a buffer stored and loaded at different indices); empty when it can.
std::string why_not_vectorizable(const ir::For& n);

}  // namespace weft::compiler::codegen
