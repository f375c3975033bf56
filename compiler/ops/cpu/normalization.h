// The CPU (LLVM) kernels of a transformer's normalizations on the fp32 host path: Softmax
// along one axis and LayerNormalization over the trailing dimensions, on plain row-major
// float32 buffers. Their reductions run in the host interpreter's order
// (compiler/graph/transformer_kernels.h: LayerNorm's in index order, Softmax's sum in
// float_eltwise.h's partials) and the exponential is weft's (compiler/ir/float_functions.h),
// so the two agree bit for bit.
#pragma once

#include <cstdint>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// y = softmax of x [outer, n, inner] along n: exp(x - max) / sum of those.
LoweredOp softmax_f32(int64_t outer, int64_t n, int64_t inner);

/// y = (x - mean) / sqrt(var + eps) * scale + bias over each of `rows` rows of `len` values;
/// scale [scale_n] and bias [bias_n] (each dividing len, read at i % n: a trailing part of the
/// row's shape); bias_n 0: no bias input.
LoweredOp layer_norm_f32(int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n);

}  // namespace weft::compiler::ops::cpu
