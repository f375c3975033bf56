// Internal to compiler/codegen/cuda: the index analyses the CUDA emitter makes to turn an
// access into one wide (vector) or whole-tile (tensor-core fragment) access: the flat offset
// of an access, its form along a loop's lanes, and what an index is known to be a multiple of
// (its alignment).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// The row-major flat offset of `idx` into the first `dims` dimensions of `b`, simplified.
ir::Expr flatten(const ir::Buffer& b, const std::vector<ir::Expr>& idx, size_t dims);

/// A factor `e` is known to be a multiple of (1 when nothing is known).
int64_t known_multiple(const ir::Expr& e);

/// `e` as base + coef * v for the lane variable v in [0, lanes), with base free of v (floor
/// division and modulo by multiples of coef * lanes of a suitably aligned base keep the lane
/// inside one quotient). Nothing when `e` is not of that form.
std::optional<std::pair<ir::Expr, int64_t>> lane_form(const ir::Expr& e, const ir::Var& v,
                                                      int64_t lanes);

/// Whether every coefficient and the constant of `e`'s affine form are multiples of `k`.
bool multiple_of(const ir::Expr& e, int64_t k);

}  // namespace weft::compiler::codegen
