// The GPU (CUDA) conv2d operator on plain layouts (NCHW input, OIHW weights, NCHW output) as an
// implicit GEMM: M = O, N = batch x OH x OW, K = C x KH x KW, the input's patches gathered
// while its tiles are staged in shared memory (gemm.h). Element types as the dense's.
#pragma once

#include "compiler/ops/conv2d_nchw.h"
#include "compiler/ops/gpu/gemm.h"

namespace weft::compiler::ops::gpu {

/// The conv2d; UserError for impossible shapes.
LoweredOp conv2d(const Conv2dNchw& shape, DType dtype, const GemmSchedule& s = {});

}  // namespace weft::compiler::ops::gpu
