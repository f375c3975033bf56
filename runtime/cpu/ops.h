// CPU operators: tensor-expression definitions with default schedules tuned for x86-64 AVX2
// (register-blocked with cache_write into a local tile, unrolled rows, vectorized columns,
// parallel outer loops), lowered to loop IR for the LLVM backend. Each builder returns a
// CpuOp whose function takes its buffers in the order: inputs, outputs, workspaces.
//
// Layouts. dense: A [M, K], W [N, K] row-major, C [M, N] (C = A W^T). conv2d and the 2D
// operators after it work on channel-blocked tensors: activations [N, C/cb, H, W, cb],
// conv weights [ceil(O/16), C/cb, KH, KW, cb, 16] (output channels past O are zero; for int8
// the cb axis is paired into ceil(cb/2) int32 values, two int16 halves each), conv outputs
// [N, ceil(O/16), OH, OW, 16]; runtime/cpu/layout.h converts from and to NCHW/OIHW.
// Element types: float32 in, float32 out; int8 in, int32 out (requantize narrows to int8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/llvm/codegen_llvm.h"

namespace weft::rt::cpu {

using compiler::ir::DType;

/// A CPU operator ready for the JIT: `func.args` are the inputs, then the outputs, then the
/// workspaces (intermediate global buffers the executor allocates).
struct CpuOp {
  compiler::codegen::LoweredFunc func;
  size_t num_inputs = 0, num_outputs = 0;
  double ops = 0;  // arithmetic operations, a multiply-add counting 2
};

/// "float32" or "int8" to a dtype; UserError naming `where` otherwise.
DType parse_dtype(const std::string& name, const std::string& where);

/// The dense schedule, a point of the CPU tuning space (compiler/tune's CPU spaces sample
/// it; the defaults are the schedule tuned for AVX2): a `rows` x `cols` register tile
/// (accumulators; `cols` vectorized, in pieces of `lanes` when lanes > 0, the pieces
/// unrolled), `k_unroll` reduction steps unrolled in the micro-kernel, A packed into row
/// panels [M/rows, K, rows] when `pack_a`, rows blocked by `row_block` (a multiple of `rows`;
/// 0: none) outside the column panels, and the parallel loop: `parallel_axis` 0 = column
/// panels, 1 = row tiles (row blocks when blocked).
struct DenseSchedule {
  int64_t rows = 6, cols = 16;
  bool parallel = true;
  int64_t lanes = 0;
  int64_t k_unroll = 1;
  bool pack_a = false;
  int64_t row_block = 0;
  int parallel_axis = 0;
  // int8 only: reduction steps per 32-bit lane, 2 (int16 pairs, dot2_i16: vpmaddwd/vpdpwssd)
  // or 4 (bytes, dot4_u8s8: vpdpbusd; A is offset by +128 to unsigned and a compensation
  // 128 * sum_k W[j, k] is subtracted from each column).
  int64_t k_pack = 2;
  // How W is packed into column panels each call: 0 = panel columns vectorized (a gather of
  // `cols` rows per reduction step), 1 = row by row (contiguous reads along K, no gathers);
  // 2, 3 = the same, but each panel is packed inside the kernel just before the row tiles
  // that read it, into a panel-sized local buffer (no pass over a packed copy of all of W;
  // needs one K pass).
  int pack_w = 0;
  // Reduction steps per K block (0: none): the reduction is split into blocks of `k_block`
  // steps, each a pass over C that adds its partial sums to the previous pass's (the panel's
  // block of W stays in L1 while the row tiles pass).
  int64_t k_block = 0;
  bool operator==(const DenseSchedule& o) const {
    return rows == o.rows && cols == o.cols && parallel == o.parallel && lanes == o.lanes &&
           k_unroll == o.k_unroll && pack_a == o.pack_a && row_block == o.row_block &&
           parallel_axis == o.parallel_axis && k_pack == o.k_pack && pack_w == o.pack_w &&
           k_block == o.k_block;
  }
};
/// UserError when `s` is not a schedule dense can build (tile limits, divisibility).
void validate(const DenseSchedule& s);
/// C[M, N] = sum_k A[M, K] * W[N, K]; float32 -> float32 or int8 -> int32.
CpuOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const DenseSchedule& s = {});

/// A 2D convolution's shape (NCHW input, OIHW weights).
struct Conv2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0, stride = 1, pad = 0;
  int64_t oh() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - kw) / stride + 1; }
};
/// The input channel block of a convolution over `c` channels (16, 8, or a divisor of c).
int64_t conv_in_block(int64_t c);
/// The output channel block (the vector width of the conv schedule).
inline constexpr int64_t kConvOutBlock = 16;
/// The conv2d schedule, a point of the CPU tuning space: a register tile of `ow` output
/// columns x `oc_blocks` output-channel blocks of 16 (vectorized), the reduction over
/// input-channel blocks, kernel rows and columns, and channels within a block outside it
/// (`reduce_order` 0: rc, ry, rx, ri; 1: ry, rx, rc, ri), `ci_unroll` channels of a block
/// unrolled, and the outer loop order (`rows_outer`: output rows outside the channel blocks).
struct ConvSchedule {
  int64_t ow = 0;  // 0: 7 when it divides OW, else 6
  bool parallel = true;
  int64_t oc_blocks = 1;
  int reduce_order = 0;
  int64_t ci_unroll = 1;
  bool rows_outer = false;
  bool operator==(const ConvSchedule& o) const {
    return ow == o.ow && parallel == o.parallel && oc_blocks == o.oc_blocks &&
           reduce_order == o.reduce_order && ci_unroll == o.ci_unroll &&
           rows_outer == o.rows_outer;
  }
};
/// UserError when `s` is not a schedule conv2d can build for `shape`.
void validate(const Conv2dShape& shape, DType dtype, const ConvSchedule& s);
/// Blocked conv2d; float32 -> float32 or int8 -> int32. UserError for impossible shapes.
CpuOp conv2d(const Conv2dShape& shape, DType dtype, const ConvSchedule& s = {});

/// A blocked activation shape [n, cb, h, w, c] (c: the channel block).
struct Blocked {
  int64_t n = 1, cb = 1, h = 1, w = 1, c = 16;
  std::vector<int64_t> dims() const { return {n, cb, h, w, c}; }
  int64_t elements() const { return n * cb * h * w * c; }
};

/// y = max(x, 0).
CpuOp relu(const Blocked& shape, DType dtype);
/// Residual add then ReLU: float32 max(a + b, 0); int8 clip(a + b, 0, 127).
CpuOp add_relu(const Blocked& shape, DType dtype);
/// float32 epilogue: y = max(x + bias[cb, c], 0).
CpuOp bias_relu(const Blocked& shape);
/// int8 epilogue (DESIGN.md §7): int32 x -> int8 clip((x >> shift) + bias[cb, c], 0, 127).
CpuOp requantize(const Blocked& shape, int shift);
/// Max pooling over a k x k window with stride and padding (padded taps never win); output
/// [n, cb, oh, ow, c].
CpuOp max_pool2d(const Blocked& shape, int64_t k, int64_t stride, int64_t pad, DType dtype);
/// Global average pooling to [n, cb, c]: float32 mean; int8 mean rounded half up.
CpuOp global_avg_pool(const Blocked& shape, DType dtype);

}  // namespace weft::rt::cpu
