// The cycle model's own data path: on-chip buffers kept in layouts that make the per-micro-op
// work fast (weights transposed, micro-ops decoded), and the element-level operations the
// timing code calls. It is written independently of the functional model, which stays the
// golden reference the two are compared against.
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::sim::cycle {

/// On-chip state of the cycle model.
class Datapath {
 public:
  explicit Datapath(const isa::Layout& l);

  /// Writes element `index` of the buffer of memory type `t` from DRAM bytes (nullptr: zero).
  void write_elem(isa::MemType t, int64_t index, const uint8_t* src);
  /// Narrows accumulator element `index` to int8 lanes into `dst` (STORE).
  void read_out_elem(int64_t index, uint8_t* dst) const;

  /// Runs one GEMM micro-op iteration (indices already range-checked).
  void gemm(int64_t dst, int64_t src, int64_t wgt, bool reset);
  /// Runs one ALU micro-op iteration.
  void alu(isa::AluOp op, int64_t dst, int64_t src, bool use_imm, int32_t imm);

  /// Decoded micro-op k.
  int32_t uop_dst(int64_t k) const { return uop_dst_[k]; }
  int32_t uop_src(int64_t k) const { return uop_src_[k]; }
  int32_t uop_wgt(int64_t k) const { return uop_wgt_[k]; }

 private:
  const isa::Layout& l_;
  int batch_, bin_, bout_;
  std::vector<int32_t> uop_dst_, uop_src_, uop_wgt_;
  std::vector<int16_t> inp_;   // [depth][BATCH][BLOCK_IN], widened for fast multiplies
  std::vector<int16_t> wgtt_;  // [depth][BLOCK_IN][BLOCK_OUT], transposed
  std::vector<int32_t> acc_;   // [depth][BATCH][BLOCK_OUT]
};

}  // namespace weft::sim::cycle
