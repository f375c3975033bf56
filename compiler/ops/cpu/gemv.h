// The CPU dense operator's matrix-vector forms (N = 1: C[M, 1] = A[M, K] . W[1, K]; M = 1:
// C[1, N] = A[1, K] . W[N, K]^T, the same product with the matrix in W): a register tile of
// dense would hold one useful lane per vector (or, for M = 1, pack all of W for one row), so
// the product runs along K instead, each of `rows` rows of the matrix accumulating `lanes`
// partial sums in vectors (K in steps of `lanes`), and the lanes are summed at the end of the
// row. dense() takes this form when it applies.
#pragma once

#include <cstdint>

#include "compiler/ops/cpu/dense.h"

namespace weft::compiler::ops::cpu {

/// Whether dense(m, n, k, ., s) runs as gemv: one output column and more than one row, or one
/// row and more than one column, and at least one step of the schedule's columns along K (the
/// lanes of the vectors along K).
bool gemv_applies(int64_t m, int64_t n, int64_t k, const DenseSchedule& s);
/// The matrix's rows times the vector (float32, or int8 -> int32), `rows` rows of `lanes`
/// partial sums at a time, with the same inputs and output as dense: `vector_first` false,
/// dense(rows_of_matrix, 1, k) (A the matrix); true, dense(1, rows_of_matrix, k) (W the
/// matrix; C[1, N] has C[N, 1]'s layout).
LoweredOp gemv(int64_t rows_of_matrix, int64_t k, ir::DType dtype, int64_t rows, int64_t lanes,
               bool vector_first = false);

}  // namespace weft::compiler::ops::cpu
