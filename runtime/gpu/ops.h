// GPU operators: tensor-expression definitions with default GPU schedules, lowered to loop IR
// for the CUDA code generator (compiler/codegen/cuda). Each builder returns a GpuOp whose
// function takes its buffers in the order: inputs, outputs, workspaces (intermediate global
// buffers the executor allocates). Building an operator needs no GPU and no CUDA toolkit.
//
// Layouts are the plain ones users hold: dense A [M, K], W [N, K] row-major, C [M, N]
// (C = A W^T, the accelerator's layout); conv2d NCHW input, OIHW weights, NCHW output; the
// other operators NCHW.
//
// Element types of dense and conv2d (GemmPath says how they run):
//   float32 -> float32   SIMT: shared tiles of A and W (double-buffered), a 4x4 register tile
//                        per thread.
//   float16 -> float32   tensor cores (WMMA 16x16x16), float32 accumulation and output.
//   int8    -> int32     tensor cores (WMMA, int32 accumulation), or dp4a (four int8 MACs per
//                        instruction) when asked for or when K is too small for a 16-deep step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/lowered_func.h"

namespace weft::rt::gpu {

using compiler::ir::DType;

/// A GPU operator ready for the code generator: `func.args` are the inputs, then the outputs,
/// then the workspaces.
struct GpuOp {
  compiler::codegen::LoweredFunc func;
  size_t num_inputs = 0, num_outputs = 0;
  double ops = 0;    // arithmetic operations, a multiply-add counting 2
  std::string path;  // how it runs: "simt", "tensor-core", "dp4a", "elementwise", ...
};

/// "float32", "float16" or "int8" to a dtype; UserError naming `where` otherwise.
DType parse_dtype(const std::string& name, const std::string& where);

/// How a GEMM-like operator runs on the GPU.
enum class GemmPath { kAuto, kSimt, kTensorCore, kDp4a };
/// "auto", "simt", "tensor-core", "dp4a".
const char* gemm_path_name(GemmPath p);

/// The block tile of the GEMM schedules.
struct GemmSchedule {
  GemmPath path = GemmPath::kAuto;  // auto: float32 simt, float16 and int8 tensor cores
  int64_t block_m = 64, block_n = 64;  // output tile of one thread block
  int64_t block_k = 16;                // reduction step staged in shared memory (simt/dp4a)
  int64_t thread_m = 4, thread_n = 4;  // register tile of one thread (simt/dp4a)
  bool double_buffer = true;           // double-buffer the shared tiles (simt/dp4a)
};

/// C[M, N] = sum_k A[M, K] * W[N, K]: float32 -> float32, float16 -> float32, int8 -> int32.
GpuOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const GemmSchedule& s = {});

/// A 2D convolution's shape (NCHW input, OIHW weights, NCHW output).
struct Conv2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0, stride = 1, pad = 0;
  int64_t oh() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - kw) / stride + 1; }
};
/// conv2d as an implicit GEMM (M = O, N = batch x OH x OW, K = C x KH x KW; the input's
/// patches are gathered while its tiles are staged in shared memory). UserError for
/// impossible shapes.
GpuOp conv2d(const Conv2dShape& shape, DType dtype, const GemmSchedule& s = {});

/// An NCHW activation shape.
struct Nchw {
  int64_t n = 1, c = 1, h = 1, w = 1;
  std::vector<int64_t> dims() const { return {n, c, h, w}; }
  int64_t elements() const { return n * c * h * w; }
};

/// y = max(x, 0) (float32, int8 or int32).
GpuOp relu(const Nchw& shape, DType dtype);
/// y = a + b, then max(., 0) when `relu`: float32, or int8 saturated to [-128, 127]
/// ([0, 127] with relu).
GpuOp add(const Nchw& shape, DType dtype, bool relu);
/// float32 epilogue: y = x + bias[c], then max(., 0) when `relu`.
GpuOp bias_add(const Nchw& shape, bool relu);
/// int8 epilogue (DESIGN.md §7): int32 x -> int8 clip((x >> shift) + bias[c], lo, hi) with
/// bias int32 per channel, [lo, hi] = [0, 127] or [-128, 127].
GpuOp requantize(const Nchw& shape, int shift, int64_t lo, int64_t hi);
/// Max pooling over k x k windows (padded taps never win); float32 or int8.
GpuOp max_pool2d(const Nchw& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Average pooling over k x k windows, dividing by the taps inside the input (padding not
/// counted); float32 mean, int8 mean rounded half up.
GpuOp avg_pool2d(const Nchw& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Global average pooling to [n, c]: float32 mean; int8 mean rounded half up.
GpuOp global_avg_pool(const Nchw& shape, DType dtype);

}  // namespace weft::rt::gpu
