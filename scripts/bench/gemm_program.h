// Program generators for the simulator benchmarks: a blocked int8 GEMM with double-buffered
// on-chip tiles and VTA-style dependency tokens (any M, N, K that are multiples of the tile
// sizes), and a load-heavy program of many small strided 2D loads. Written as assembly
// would be, one instruction at a time, until the compiler can emit them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::bench {

/// A DRAM image holding a program and its data.
struct BenchProgram {
  std::string name;
  std::vector<uint8_t> image;
  uint64_t insn_offset = 0;
  uint64_t insn_count = 0;
  uint64_t out_begin = 0, out_end = 0;  // bytes of the output region
  uint64_t macs = 0;
};

/// Blocked GEMM: OUT[M x N] = INP[M x K] . WGT[N x K]^T, tiles of tm x tn output blocks and
/// tk reduction blocks, `vthreads` (1 or 2) buffer slots. Sizes are in elements of the GEMM
/// block (BATCH rows, BLOCK_IN / BLOCK_OUT columns).
BenchProgram blocked_gemm(const isa::Layout& l, int64_t m, int64_t n, int64_t k, int64_t tm,
                          int64_t tn, int64_t tk, int vthreads, uint32_t seed);

/// The benchmarks' square GEMM: M = N = K = `size` scalars (a multiple of every block side),
/// tiles as large as two buffer slots allow so that weights are reused across rows, each tile
/// dividing its dimension. UserError for a size that is not a multiple of the block.
BenchProgram square_gemm(const isa::Layout& l, int64_t size, int vthreads, uint32_t seed);

/// The GEMM-heavy program of issue #19: `gemms` GEMMs of `uops` micro-ops x 16 x 16 iterations
/// (a 16 x 16-tap reduction into `uops` accumulator rows, two alternating weight sets), after
/// one reset GEMM, then a STORE of the rows: bound by the GEMM unit (one micro-op a cycle).
BenchProgram gemm_heavy(const isa::Layout& l, int64_t gemms, int64_t uops, uint32_t seed);

/// `count` load / compute / store steps of one element each, double-buffered, each step moving
/// a token on all four queues: a program bound by instruction and token traffic.
BenchProgram token_heavy(const isa::Layout& l, int64_t count, uint32_t seed);

/// `count` LOAD INP/WGT pairs of small strided 2D tiles, each followed by one GEMM micro-op,
/// double-buffered: a program bound by DRAM reads.
BenchProgram load_heavy(const isa::Layout& l, int64_t count, uint32_t seed);

}  // namespace weft::bench
