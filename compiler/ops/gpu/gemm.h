// The GPU (CUDA) GEMM schedules that dense and conv2d share. A GemmSpec says what is
// multiplied (element functions of A and B, so that conv2d's input patches are gathered on the
// fly) and what the operator outputs from the product; gemm() builds the tensor expressions
// and the GPU schedule of the chosen path and lowers them.
//
// Element types (GemmPath says how they run):
//   float32 -> float32   simt: shared tiles of A and W (double-buffered), a 4x4 register tile
//                        per thread.
//   float16 -> float32   tensor cores (WMMA 16x16x16), float32 accumulation and output.
//   int8    -> int32     tensor cores (WMMA, int32 accumulation), or dp4a (four int8 MACs per
//                        instruction) when asked for or when K is too small for a 16-deep step.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/lowered_op.h"
#include "compiler/te/tensor.h"

namespace weft::compiler::ops::gpu {

using ir::DType;

/// How a GEMM-like operator runs on the GPU.
enum class GemmPath { kAuto, kSimt, kTensorCore, kDp4a };
/// "auto", "simt", "tensor-core", "dp4a".
const char* gemm_path_name(GemmPath p);
/// The path named `name` (gemm_path_name's); UserError naming `where` otherwise.
GemmPath parse_gemm_path(const std::string& name, const std::string& where);

/// The block tile of the GEMM schedules.
struct GemmSchedule {
  GemmPath path = GemmPath::kAuto;     // auto: float32 simt, float16 and int8 tensor cores
  int64_t block_m = 64, block_n = 64;  // output tile of one thread block
  int64_t block_k = 16;                // reduction step staged in shared memory (simt/dp4a)
  int64_t thread_m = 4, thread_n = 4;  // register tile of one thread (simt/dp4a)
  bool double_buffer = true;           // double-buffer the shared tiles (simt/dp4a)
};

/// C[i, j] = sum_r a(i, r) * b(j, r) for i < m, j < n, r < k.
struct GemmSpec {
  std::string name;
  int64_t m = 0, n = 0, k = 0;
  DType in = DType::kFloat32;
  /// Element (i, r) of A and (j, r) of B, called only with indices in range.
  std::function<ir::Expr(const ir::Expr&, const ir::Expr&)> a, b;
  /// Whether a(i, r) at (i, r + 1) is the next element in memory (then tiles of A can be
  /// copied with vector loads when the shape is a multiple of the tiles).
  bool a_contiguous = true, b_contiguous = true;
  std::vector<te::Tensor> inputs;
  /// The operator's output: its shape and value from c(i, j). Null `out`: the output is C
  /// itself ([m, n], the accumulator type).
  std::vector<int64_t> out_shape;
  std::function<ir::Expr(const std::vector<ir::Expr>&,
                         const std::function<ir::Expr(const ir::Expr&, const ir::Expr&)>&)>
      out;
  double ops = 0;
};

/// The path `s.path` resolves to for `spec` (UserError when it cannot run that dtype).
GemmPath resolve_path(const GemmSpec& spec, const GemmSchedule& s);
/// The lowered operator.
LoweredOp gemm(const GemmSpec& spec, const GemmSchedule& s);

}  // namespace weft::compiler::ops::gpu
