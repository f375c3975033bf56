// Integer arithmetic the compiler and the runtime share: division rounding up (sizes padded to
// whole blocks and tiles) and rounding towards negative infinity (the IR's floordiv and
// floormod, folded on constants).
#pragma once

#include <cstdint>

namespace weft::compiler::ir {

/// a / b rounded up (a >= 0, b > 0).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// a rounded up to a multiple of b (a >= 0, b > 0).
constexpr int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
/// a / b rounded towards negative infinity (b != 0).
constexpr int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// a - b * floor_div(a, b): the remainder with the sign of b (b != 0).
constexpr int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

}  // namespace weft::compiler::ir
