// The GPU (CUDA) dense operator: C[M, N] = sum_k A[M, K] * W[N, K] (A, W row-major, the
// accelerator's layout), float32 -> float32, float16 -> float32 or int8 -> int32, on the GEMM
// schedule of the chosen path (gemm.h). Building it needs no GPU and no CUDA toolkit.
#pragma once

#include <cstdint>

#include "compiler/ops/gpu/gemm.h"

namespace weft::compiler::ops::gpu {

/// The dense; UserError for sizes that are not positive or a path that cannot run `dtype`.
LoweredOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const GemmSchedule& s = {});

}  // namespace weft::compiler::ops::gpu
