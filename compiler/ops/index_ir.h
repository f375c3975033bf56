// Index arithmetic as loop IR, shared by the CPU and GPU operators: clamping a value (or an
// index, so that a read stays in bounds while a select discards it) and the tests of whether
// a tap of a window or of a padded input falls inside the real input, and reads of a matrix
// on a domain padded past it.
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/ir/ir.h"

namespace weft::compiler::ops {

/// min(max(v, lo), hi).
ir::Expr clamp(ir::Expr v, ir::Expr lo, ir::Expr hi);
/// min(max(v, lo), hi) with int64 bounds.
ir::Expr clamp(ir::Expr v, int64_t lo, int64_t hi);
/// lo <= v < hi (int64 bounds).
ir::Expr in_range(const ir::Expr& v, int64_t lo, int64_t hi);
/// 0 <= y < h and 0 <= x < w.
ir::Expr inside(const ir::Expr& y, const ir::Expr& x, int64_t h, int64_t w);

/// Element (i, r) of a matrix `at` of `rows` x `cols` read on a domain padded past it: the
/// indices clamped into range and the value zero (of type `t`) outside, each only where that
/// side is padded (`row_pad`, `col_pad`).
ir::Expr guarded(const std::function<ir::Expr(const ir::Expr&, const ir::Expr&)>& at,
                 const ir::Expr& i, const ir::Expr& r, int64_t rows, int64_t cols, bool row_pad,
                 bool col_pad, ir::DType t);

}  // namespace weft::compiler::ops
