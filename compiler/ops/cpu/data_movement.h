// The CPU (LLVM) kernels of the fp32 host path's data-movement and reduction operators:
// Transpose, Slice (one axis), ReduceMean (contiguous reduced axes) and one axis of Resize, on
// plain row-major float32 buffers. Each computes what the host interpreter's loop does
// (compiler/graph/transformer_kernels.h, interpret_kernels.h, resize.h), in the same order of
// arithmetic, so that the two agree bit for bit (Resize's blend to rounding: the JIT may fuse
// its multiply and add); the tests hold them to it.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// y = x (shape `xs`) transposed by `perm` (output dimension d is input dimension perm[d]).
LoweredOp transpose_f32(const std::vector<int64_t>& xs, const std::vector<int64_t>& perm);

/// y [outer, count, inner] = x [outer, dim, inner] at [o, begin + j * step, k].
LoweredOp slice_f32(int64_t outer, int64_t dim, int64_t inner, int64_t begin, int64_t count,
                    int64_t step);

/// y [outer, inner] = mean of x [outer, n, inner] along n (summed in index order, then divided).
LoweredOp reduce_mean_f32(int64_t outer, int64_t n, int64_t inner);

/// One axis of Resize: y [outer, lo, inner] = (1 - W[i]) x[o, Lo[i], k] + W[i] x[o, Hi[i], k]
/// for x [outer, li, inner]; inputs X, Lo and Hi (int32, lo each), W (float32, lo).
LoweredOp resize_axis_f32(int64_t outer, int64_t li, int64_t lo, int64_t inner);

}  // namespace weft::compiler::ops::cpu
