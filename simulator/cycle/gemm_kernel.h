// The cycle model's int8 GEMM kernels: on-chip INP and WGT elements kept in the packed layout
// that one instruction set's multiply-add wants, and a kernel that applies one weight element
// to a list of accumulator rows (`acc[dst] += inp[src] . wgt^T` with int32 wrap-around), so that
// the weights stay in registers across the rows. Three implementations give identical results:
// portable C++ (any host, any shape), AVX2 (16-bit pairs, vpmaddwd) and AVX-512 VNNI (unsigned
// x signed bytes, vpdpbusd, with the signed input recovered by a per-weight correction). The
// instruction set is chosen at run time from what the host supports; none is assumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::sim::cycle {

/// The instruction set of a GEMM kernel; kAuto is the best one the host and the shape allow.
enum class KernelIsa { kAuto, kGeneric, kAvx2, kAvx512Vnni };

/// "auto", "generic", "avx2" or "avx512vnni".
const char* kernel_isa_name(KernelIsa isa);
/// The inverse of kernel_isa_name; UserError for another name.
KernelIsa parse_kernel_isa(const std::string& name);
/// Whether this host can run kernels of `isa` (kAuto and kGeneric: always).
bool host_supports(KernelIsa isa);

/// Packed INP/WGT layouts and the row kernel of one GEMM shape on one instruction set.
class GemmKernel {
 public:
  /// Resolves kAuto to the best supported set with a kernel for the shape; a set the host
  /// lacks, or one without a kernel for the shape, falls back to the next one down.
  GemmKernel(int batch, int block_in, int block_out, KernelIsa isa);

  /// The instruction set actually used.
  KernelIsa isa() const { return isa_; }
  /// Bytes of one packed INP / WGT element.
  size_t inp_bytes() const { return inp_bytes_; }
  size_t wgt_bytes() const { return wgt_bytes_; }
  /// Packs one element from its DRAM bytes (nullptr: zeros, as padding).
  void pack_inp(const uint8_t* src, uint8_t* dst) const;
  void pack_wgt(const uint8_t* src, uint8_t* dst) const;

  /// For r = 0 .. n-1 in order: acc row dst[r] += inp row src[r] . w^T, where rows are
  /// element indices into `acc` (batch x block_out int32 each) and `inp` (packed elements).
  /// The same acc row may appear more than once; inp and w are not written.
  void rows(int32_t* acc, const uint8_t* inp, const uint8_t* w, const int32_t* dst,
            const int32_t* src, int64_t n) const {
    fn_(*this, acc, inp, w, dst, src, n);
  }

  int batch() const { return batch_; }
  int block_in() const { return bin_; }
  int block_out() const { return bout_; }

 private:
  using RowsFn = void (*)(const GemmKernel&, int32_t*, const uint8_t*, const uint8_t*,
                          const int32_t*, const int32_t*, int64_t);
  using PackFn = void (*)(const GemmKernel&, const uint8_t*, uint8_t*);
  int batch_, bin_, bout_;
  KernelIsa isa_;
  size_t inp_bytes_ = 0, wgt_bytes_ = 0;
  RowsFn fn_ = nullptr;
  PackFn pack_wgt_ = nullptr;
  std::vector<uint8_t> zeros_;  // a DRAM weight element of zeros (padding)
};

}  // namespace weft::sim::cycle
