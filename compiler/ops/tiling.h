// Integer helpers the operators use to pad sizes to whole blocks and tiles.
#pragma once

#include <cstdint>

namespace weft::compiler::ops {

/// a / b rounded up (a >= 0, b > 0).
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// a rounded up to a multiple of b.
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace weft::compiler::ops
