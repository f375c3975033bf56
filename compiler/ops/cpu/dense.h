// The CPU (LLVM) dense operator: C[M, N] = sum_k A[M, K] * W[N, K] (A, W row-major; float32 ->
// float32, or int8 -> int32), with its default schedule tuned for x86-64 AVX2 and the knobs of
// the CPU tuning space (compiler/tune/cpu_space.h samples DenseSchedule).
//
// The schedule follows the classic BLIS micro-kernel: the output is computed on a domain padded
// to whole register tiles (reads clamped into range, packed weights zero-padded) so the hot
// loops carry no guards; the tile is a cache_write stage in local scope computed at the tile
// loop, its reduction loops outside its unrolled rows and vectorized columns, so LLVM keeps it
// in 12-14 AVX2 registers. When the real output is smaller than the padded domain each tile
// stores only its part inside C (row guards, a masked vector store): no cropping pass.
#pragma once

#include <cstdint>

#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops::cpu {

using ir::DType;

/// The dense schedule, a point of the CPU tuning space (the defaults are the schedule tuned
/// for AVX2): a `rows` x `cols` register tile (accumulators; `cols` vectorized, in pieces of
/// `lanes` when lanes > 0, the pieces unrolled), `k_unroll` reduction steps unrolled in the
/// micro-kernel, A packed into row panels [M/rows, K, rows] when `pack_a`, rows blocked by
/// `row_block` (a multiple of `rows`; 0: none) outside the column panels (M splits into the
/// fewest blocks of at most that many rows, of equal size in whole tiles), and the parallel
/// loop: `parallel_axis` 0 = column panels, 1 = row tiles (row blocks when blocked).
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
LoweredOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const DenseSchedule& s = {});

}  // namespace weft::compiler::ops::cpu
