// The graph executor's CPU kernels from the LLVM CPU backend: each int8 host node (Quantize,
// Dequantize, Relu, Clip, Add, Requantize, MaxPool, AveragePool, GlobalAveragePool and the
// QConv/QDense fallback) becomes an operator of compiler/ops/cpu (its tensor expression and
// schedule live there), JIT-compiled once per shape by ORC (compiled kernels are cached for
// the process, keyed by operator, shape and parameters) and called with the executor's host
// pointers. Their rounding is the one quantize.h and reference_int8.h define;
// cpu_kernels.h keeps the plain C++ loops as the reference the tests hold them to, bit for bit.
// The CPU nodes that write a packed output straight into the device arena (kCpuPacked: the
// stem's weft.Im2Col with the f32 -> int8 quantize folded in, and band_pool's MaxPool bands)
// have LLVM kernels too (compiler/ops/cpu/packed.h), each computing one chunk of the packed
// output per call (a chunk of output rows, or of (batch, channel) block planes) with the
// chunk's position a run-time argument, so one kernel per shape serves every chunk;
// packed_io.h's loops stay their reference. Nodes without an LLVM kernel (layout changes,
// concat, copies, average pools with a packed output, and everything in a build without the
// CPU backend) stay on cpu_kernels.h and packed_io.h. This header has no LLVM types.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/resize.h"
#include "compiler/ops/float_eltwise.h"
#include "runtime/graph/packed_io.h"

namespace weft::rt::graph {

/// Whether this build has the LLVM CPU backend (WEFT_CPU_BACKEND).
bool have_llvm_kernels();

/// One node's JIT kernel with the node's own constants (per-channel shifts, bias, weights).
class LlvmNodeKernel;

/// The JIT kernel of CPU node `n` of `g`, compiled on first use of its shape (later calls with
/// the same shape and parameters take the process-wide cache), or null when the node kind or
/// type has no LLVM kernel here (the executor then runs cpu_kernels.h's loop).
std::shared_ptr<LlvmNodeKernel> make_llvm_node_kernel(const compiler::graph::Graph& g,
                                                      const compiler::graph::Node& n);

/// Runs `k` on run_cpu_node's pointers: `in[i]` input i's bytes (plain layout; f32 for
/// weft.Quantize), `out` the output's. Safe to call from several threads.
void run_llvm_node(LlvmNodeKernel& k, const std::vector<const uint8_t*>& in, uint8_t* out);

/// The JIT kernel of CPU node `n` of `g` with a packed (blocked int8) output: weft.Im2Col
/// (int8 input, or f32 quantized as weft.Quantize does) or MaxPool; null when it has none (the
/// executor then runs packed_io.h's im2col_packed / pool_packed). Cached like the others.
std::shared_ptr<LlvmNodeKernel> make_llvm_packed_kernel(const compiler::graph::Graph& g,
                                                        const compiler::graph::Node& n);

/// Runs packed kernel `k` on the node's input `in` (its first input's bytes) and writes the
/// packed output through `write` chunk by chunk, as packed_io.h's loops do (the same chunks,
/// the same bytes); returns the staging bytes it used.
int64_t run_llvm_packed(LlvmNodeKernel& k, const void* in, const PackedWriter& write);

/// What `k` computes, for listings ("maxpool i8 64x112x112 k3x3 s2x2 p1,1,1,1").
const std::string& llvm_node_kernel_key(const LlvmNodeKernel& k);

/// Kernels compiled in this process so far and the seconds their JIT compilation took.
struct LlvmKernelStats {
  int compiled = 0;
  double compile_seconds = 0;
};
LlvmKernelStats llvm_kernel_stats();

// ---- float32 kernels for the fp32 `--target llvm` path (runtime/graph/cpu_graph.cc) ----
// Each returns false (doing nothing) without the CPU backend; the caller then runs its plain
// loop. Shapes are NCHW, windows as in host_kernels.h.

/// y = min(max(x, lo), hi) over `count` floats (Relu: lo 0, hi +inf).
bool llvm_clip_f32(const float* x, float* y, int64_t count, float lo, float hi);
/// 2D max or average pooling of [planes, h, w] to [planes, oh, ow]; window kh x kw, strides,
/// pads (top, left, bottom, right); average: count_include_pad as ONNX.
bool llvm_pool_f32(bool max, const float* x, float* y, int64_t planes, int64_t h, int64_t w,
                   int64_t oh, int64_t ow, const std::vector<int64_t>& kernel,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                   bool count_include_pad);
/// Mean of each of `planes` planes of `hw` floats.
bool llvm_global_avg_pool_f32(const float* x, float* y, int64_t planes, int64_t hw);
/// Per-channel y = x * a[c] + b[c] over [n, c, plane] (inference batch norm, a and b folded).
bool llvm_scale_shift_f32(const float* x, const float* a, const float* b, float* y, int64_t n,
                          int64_t c, int64_t plane);
/// y = u(x) over `count` floats (compiler/ops/float_eltwise.h).
bool llvm_unary_f32(const compiler::ops::Unary& u, const float* x, float* y, int64_t count);
/// y = f(a, b), the operands of shapes `as` and `bs` broadcast to `ys` (NumPy's rules).
bool llvm_binary_f32(compiler::ops::BinaryFn f, const float* a, const std::vector<int64_t>& as,
                     const float* b, const std::vector<int64_t>& bs, float* y,
                     const std::vector<int64_t>& ys);
/// Softmax of x [outer, n, inner] along n (compiler/ops/cpu/normalization.h).
bool llvm_softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner);
/// LayerNormalization of `rows` rows of `len` floats; scale [scale_n], bias [bias_n] (null and
/// 0: none), each read at i % n.
bool llvm_layer_norm_f32(const float* x, const float* scale, const float* bias, float* y,
                         int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n);
/// Transpose of x (shape xs, rank 1 or more) by perm (compiler/ops/cpu/data_movement.h).
bool llvm_transpose_f32(const float* x, const std::vector<int64_t>& xs,
                        const std::vector<int64_t>& perm, float* y);
/// Elements begin, begin + step, ... (< end; step positive) of dimension `axis` of x (shape xs).
bool llvm_slice_f32(const float* x, const std::vector<int64_t>& xs, size_t axis, int64_t begin,
                    int64_t end, int64_t step, float* y);
/// Mean over the dimensions flagged in `reduced`; false (declined) unless they are adjacent.
bool llvm_reduce_mean_f32(const float* x, const std::vector<int64_t>& xs,
                          const std::vector<bool>& reduced, float* y);
/// Resize by `axes` (compiler/graph/resize.h), one kernel per resized axis, the last first.
bool llvm_resize_f32(const float* x, const std::vector<int64_t>& xs,
                     const std::vector<compiler::graph::ResizeAxis>& axes, float* y);

}  // namespace weft::rt::graph
