// The CPU dense operator's matrix-vector form (N = 1: C[M, 1] = A[M, K] . W[1, K]): a register
// tile of dense would hold one useful lane per vector, so the product runs along K instead,
// each of `rows` rows accumulating `lanes` partial sums in vectors (K in steps of `lanes`),
// and the lanes are summed at the end of the row. dense() takes this form when it applies.
#pragma once

#include <cstdint>

#include "compiler/ops/cpu/dense.h"

namespace weft::compiler::ops::cpu {

/// Whether dense(m, n, k, ., s) runs as gemv: one output column, more than one row, and at
/// least one step of the schedule's columns along K (the lanes of the vectors along K).
bool gemv_applies(int64_t m, int64_t n, int64_t k, const DenseSchedule& s);
/// C[M, 1] = A[M, K] . W[1, K] (float32, or int8 -> int32), `rows` rows of `lanes` partial
/// sums at a time; the same inputs and output as dense(m, 1, k, dtype).
LoweredOp gemv(int64_t m, int64_t k, ir::DType dtype, int64_t rows, int64_t lanes);

}  // namespace weft::compiler::ops::cpu
