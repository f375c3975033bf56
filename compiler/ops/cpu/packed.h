// The CPU (LLVM) kernels of the graph's host nodes that write a packed (channel- and
// batch-blocked int8) output for the accelerator: the stem's weft.Im2Col (with the f32 -> int8
// quantize folded in) and band_pool's MaxPool bands. Each computes one chunk of the packed
// output per call (a chunk of output rows, or of block planes), the chunk's position an int32
// run-time argument, so one kernel per shape serves every chunk.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/cpu/pool.h"
#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

/// The packed layout of an N x C x H x W int8 tensor: [NB, CB, H, W, bn, bc] blocks of bn
/// batch rows and bc channels, padding lanes zero.
struct PackedGeom {
  int64_t n, c, h, w, bn, bc;
  int64_t nb() const { return (n + bn - 1) / bn; }
  int64_t cb() const { return (c + bc - 1) / bc; }
};

/// weft.Im2Col into a packed output, `rows` output rows per call: Y[nb][cb][r][x][ln][lc] is
/// column oc = cb*bc + lc of batch row nb*bn + ln at output row R0 + r of the whole im2col
/// (R0 an int32 argument): a tap of input channel oc / k^2 (quantized at scale 2^e when the
/// input is float32), or constant column consts[oc - C k^2], or 0 (padding lanes, taps outside
/// the input). Arguments: x, consts (int32, at least one), R0, then Y.
struct Im2ColPacked {
  std::vector<int64_t> x;  // NCHW input shape
  bool f32 = false;        // float32 input, quantized
  int e = 0;               // the output's scale exponent (f32 input)
  PackedGeom y;
  int64_t rows = 1, k = 1, stride = 1, pad_top = 0, pad_left = 0, consts = 0;
};
LoweredOp im2col_packed(const Im2ColPacked& p);

/// MaxPool of int8 NCHW `x_shape` into a packed output, `planes` block planes per call:
/// Y[q][oy][ox][ln][lc] is the window maximum of plane (nb*bn + ln, cb*bc + lc) where nb, cb =
/// divmod(P0 + q, CB) (P0 an int32 argument); 0 in padding lanes and planes past the last.
/// Arguments: x, P0, then Y.
LoweredOp max_pool_packed(const std::vector<int64_t>& x_shape, const PackedGeom& y, const Window& s,
                          int64_t planes);

}  // namespace weft::compiler::ops::cpu
