// The cycle model's own data path: on-chip buffers kept in layouts that make the GEMM work
// fast (INP and WGT packed for the host's int8 kernel, micro-ops decoded), the element-level
// operations the timing code calls, and a whole GEMM instruction's data at once. It is written
// independently of the functional model, which stays the golden reference the two are
// compared against.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/store_requant.h"
#include "simulator/cycle/gemm_kernel.h"

namespace weft::sim::cycle {

/// On-chip state of the cycle model.
class Datapath {
 public:
  /// `isa` picks the GEMM kernel (kAuto: the best the host supports).
  explicit Datapath(const isa::Layout& l, KernelIsa isa = KernelIsa::kAuto);

  /// Writes element `index` of the buffer of memory type `t` from DRAM bytes (nullptr: zero).
  void write_elem(isa::MemType t, int64_t index, const uint8_t* src);
  /// Narrows accumulator element `index` to int8 lanes into `dst` (STORE), by `rq`.
  void read_out_elem(int64_t index, uint8_t* dst, const isa::StoreRequant& rq) const;

  /// Runs one GEMM micro-op iteration (indices already range-checked).
  void gemm(int64_t dst, int64_t src, int64_t wgt, bool reset);
  /// Runs every iteration of a GEMM instruction whose indices are all in range, grouped so
  /// that one weight element serves many rows (docs/microarchitecture.md, "Shortcuts"). The
  /// result equals running the iterations one by one in program order: a GEMM only adds into
  /// (or, with reset_reg, zeroes) accumulator rows, and never writes what it reads.
  /// Checks `cancel` now and then (RunCancelled).
  void gemm_insn(const isa::Insn& insn, const std::atomic<bool>* cancel = nullptr);
  /// Runs every iteration of an ALU instruction whose indices are all in range, in program
  /// order (an iteration may read what an earlier one wrote).
  void alu_insn(const isa::Insn& insn);

  /// Decoded micro-op k.
  int32_t uop_dst(int64_t k) const { return uop_dst_[k]; }
  int32_t uop_src(int64_t k) const { return uop_src_[k]; }
  int32_t uop_wgt(int64_t k) const { return uop_wgt_[k]; }

  /// The GEMM kernel in use.
  const GemmKernel& kernel() const { return kernel_; }

 private:
  // A zeroed, 64-byte aligned array, so that the kernels' vector loads of an element do not
  // straddle cache lines.
  template <typename T>
  class Aligned {
   public:
    explicit Aligned(size_t count)
        : p_(static_cast<T*>(std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64))) {
      if (!p_) throw std::bad_alloc();
      std::memset(p_.get(), 0, (count * sizeof(T) + 63) / 64 * 64);
    }
    T* data() { return p_.get(); }
    const T* data() const { return p_.get(); }
    T& operator[](size_t i) { return p_.get()[i]; }
    const T& operator[](size_t i) const { return p_.get()[i]; }

   private:
    struct Free {
      void operator()(T* p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> p_;
  };

  const isa::Layout& l_;
  int batch_, bin_, bout_;
  GemmKernel kernel_;
  std::vector<int32_t> uop_dst_, uop_src_, uop_wgt_;
  Aligned<uint8_t> inp_;  // [depth] packed INP elements (kernel_.inp_bytes() each)
  Aligned<uint8_t> wgt_;  // [depth] packed WGT elements (kernel_.wgt_bytes() each)
  Aligned<int32_t> acc_;  // [depth][BATCH][BLOCK_OUT]
  std::vector<int32_t> rows_dst_, rows_src_;  // gemm_insn's row lists
  std::vector<int32_t> offs_dst_, offs_src_;  // gemm_insn's folded loop offsets
};

}  // namespace weft::sim::cycle
