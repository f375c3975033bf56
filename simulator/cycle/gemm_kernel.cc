// The cycle model's int8 GEMM kernels; see gemm_kernel.h.
//
// Packed layouts (per element; B = batch, BI = block_in, BO = block_out):
//   generic:    INP int16 [B][BI];      WGT int16 [BI][BO] (transposed)
//   avx2:       INP int16 [B][BI];      WGT int16 [BI/2][BO][2] (input-channel pairs, so that
//               one vpmaddwd of a broadcast input pair gives 8 outputs' partial sums)
//   avx512vnni: INP uint8 [B][BI] holding x + 128; WGT int8 [BI/4][BO][4] (quads, for
//               vpdpbusd) then int32 corr[BO] = -128 * sum_c w[o][c], so that
//               sum_c (x + 128) w + corr = sum_c x w exactly (mod 2^32); with BO = 8 every
//               32-byte group (each quad's weights, the correction) is stored twice, to fill
//               both halves of a zmm.
// Every kernel computes acc += sum_c x w in int32 with wrap-around, in any order: integer
// addition mod 2^32 is associative and commutative, and the 16-bit pair sums of vpmaddwd
// (at most 2 * 128 * 128) and the byte quads of vpdpbusd (at most 4 * 255 * 128) cannot
// overflow before they reach the 32-bit accumulator.
#include "simulator/cycle/gemm_kernel.h"

#include <cstring>

#include "hardware/isa/errors.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WEFT_X86_KERNELS 1
#endif

namespace weft::sim::cycle {

const char* kernel_isa_name(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::kAuto:
      return "auto";
    case KernelIsa::kGeneric:
      return "generic";
    case KernelIsa::kAvx2:
      return "avx2";
    case KernelIsa::kAvx512Vnni:
      return "avx512vnni";
  }
  return "?";
}

KernelIsa parse_kernel_isa(const std::string& name) {
  for (KernelIsa k :
       {KernelIsa::kAuto, KernelIsa::kGeneric, KernelIsa::kAvx2, KernelIsa::kAvx512Vnni}) {
    if (name == kernel_isa_name(k)) return k;
  }
  throw UserError("unknown GEMM kernel '" + name + "' (auto, generic, avx2, avx512vnni)");
}

bool host_supports(KernelIsa isa) {
#ifdef WEFT_X86_KERNELS
  __builtin_cpu_init();
  switch (isa) {
    case KernelIsa::kAvx2:
      return __builtin_cpu_supports("avx2");
    case KernelIsa::kAvx512Vnni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
    default:
      return true;
  }
#else
  return isa == KernelIsa::kAuto || isa == KernelIsa::kGeneric;
#endif
}

namespace {

int32_t load_i32(const void* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- portable kernels ----

// Any shape; int16 layouts as above.
void rows_generic(const GemmKernel& k, int32_t* acc, const uint8_t* inp, const uint8_t* w,
                  const int32_t* dst, const int32_t* src, int64_t n) {
  const int B = k.batch(), BI = k.block_in(), BO = k.block_out();
  const auto* wt = reinterpret_cast<const int16_t*>(w);
  for (int64_t r = 0; r < n; ++r) {
    int32_t* a = acc + int64_t{dst[r]} * B * BO;
    const auto* x = reinterpret_cast<const int16_t*>(inp) + int64_t{src[r]} * B * BI;
    for (int b = 0; b < B; ++b) {
      for (int c = 0; c < BI; ++c) {
        const int32_t xv = x[b * BI + c];
        for (int o = 0; o < BO; ++o) {
          a[b * BO + o] = static_cast<int32_t>(static_cast<uint32_t>(a[b * BO + o]) +
                                               static_cast<uint32_t>(xv * wt[c * BO + o]));
        }
      }
    }
  }
}

// Fixed shapes, so that the compiler unrolls and vectorizes over the outputs.
template <int B, int BI, int BO>
void rows_generic_fixed(const GemmKernel&, int32_t* acc, const uint8_t* inp, const uint8_t* w,
                        const int32_t* dst, const int32_t* src, int64_t n) {
  const auto* __restrict wt = reinterpret_cast<const int16_t*>(w);
  for (int64_t r = 0; r < n; ++r) {
    int32_t* a = acc + int64_t{dst[r]} * B * BO;
    const auto* __restrict x = reinterpret_cast<const int16_t*>(inp) + int64_t{src[r]} * B * BI;
    for (int b = 0; b < B; ++b) {
      uint32_t sum[BO] = {};
      for (int c = 0; c < BI; ++c) {
        const int32_t xv = x[b * BI + c];
        for (int o = 0; o < BO; ++o) sum[o] += static_cast<uint32_t>(xv * wt[c * BO + o]);
      }
      for (int o = 0; o < BO; ++o) {
        a[b * BO + o] = static_cast<int32_t>(static_cast<uint32_t>(a[b * BO + o]) + sum[o]);
      }
    }
  }
}

#ifdef WEFT_X86_KERNELS

// ---- AVX2: vpmaddwd on input-channel pairs ----

template <int B, int BI, int BO>
__attribute__((target("avx2"))) void rows_avx2(const GemmKernel&, int32_t* acc, const uint8_t* inp,
                                               const uint8_t* w, const int32_t* dst,
                                               const int32_t* src, int64_t n) {
  static_assert(BI % 2 == 0 && BO % 8 == 0, "AVX2 kernel shape");
  constexpr int P = BI / 2, V = BO / 8;
  __m256i wr[P * V];  // [pair][output chunk], held across the rows
  for (int i = 0; i < P * V; ++i) {
    wr[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w) + i);
  }
  for (int64_t r = 0; r < n; ++r) {
    int32_t* a = acc + int64_t{dst[r]} * B * BO;
    const auto* x = reinterpret_cast<const int16_t*>(inp) + int64_t{src[r]} * B * BI;
    for (int b = 0; b < B; ++b) {
      __m256i s[V];
      for (int v = 0; v < V; ++v) {
        s[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + b * BO + 8 * v));
      }
      for (int p = 0; p < P; ++p) {
        const __m256i xp = _mm256_set1_epi32(load_i32(x + b * BI + 2 * p));
        for (int v = 0; v < V; ++v) {
          s[v] = _mm256_add_epi32(s[v], _mm256_madd_epi16(xp, wr[p * V + v]));
        }
      }
      for (int v = 0; v < V; ++v) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + b * BO + 8 * v), s[v]);
      }
    }
  }
}

// ---- AVX-512 VNNI: vpdpbusd on input-channel quads, x biased to unsigned ----

#define WEFT_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// 16 outputs per zmm.
template <int B, int BI, int BO>
WEFT_VNNI_TARGET void rows_vnni_zmm(const GemmKernel&, int32_t* acc, const uint8_t* inp,
                                    const uint8_t* w, const int32_t* dst, const int32_t* src,
                                    int64_t n) {
  static_assert(BI % 4 == 0 && BO % 16 == 0, "VNNI zmm kernel shape");
  constexpr int G = BI / 4, V = BO / 16;
  __m512i wr[G * V], corr[V];
  for (int i = 0; i < G * V; ++i) wr[i] = _mm512_loadu_si512(w + 64 * i);
  for (int v = 0; v < V; ++v) corr[v] = _mm512_loadu_si512(w + BI * BO + 64 * v);
  for (int64_t r = 0; r < n; ++r) {
    int32_t* a = acc + int64_t{dst[r]} * B * BO;
    const uint8_t* x = inp + int64_t{src[r]} * B * BI;
    for (int b = 0; b < B; ++b) {
      __m512i s[V];
      for (int v = 0; v < V; ++v) {
        s[v] = _mm512_add_epi32(_mm512_loadu_si512(a + b * BO + 16 * v), corr[v]);
      }
      for (int g = 0; g < G; ++g) {
        const __m512i xg = _mm512_set1_epi32(load_i32(x + b * BI + 4 * g));
        for (int v = 0; v < V; ++v) s[v] = _mm512_dpbusd_epi32(s[v], xg, wr[g * V + v]);
      }
      for (int v = 0; v < V; ++v) _mm512_storeu_si512(a + b * BO + 16 * v, s[v]);
    }
  }
}

// gemm8x8 (8 x 8 x 8): two rows per zmm. The 16 input bytes of rows b and b + 1 are one load
// (broadcast to every 128-bit lane, which a load does for free); a permute spreads quad g of
// row b over the low 8 lanes and of row b + 1 over the high 8, and the packed weights hold quad
// g's 8 x 4 bytes in both halves (as does the correction), so one vpdpbusd serves 2 rows x 8
// outputs.
WEFT_VNNI_TARGET void rows_vnni_8x8x8(const GemmKernel&, int32_t* acc, const uint8_t* inp,
                                      const uint8_t* w, const int32_t* dst, const int32_t* src,
                                      int64_t n) {
  const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
  const __m512i corr = _mm512_loadu_si512(w + 128);
  const __m512i idx0 = _mm512_set_epi32(2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i idx1 = _mm512_set_epi32(3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1);
  for (int64_t r = 0; r < n; ++r) {
    int32_t* a = acc + int64_t{dst[r]} * 64;
    const uint8_t* x = inp + int64_t{src[r]} * 64;
    for (int b = 0; b < 8; b += 2) {
      // (maskz forms: GCC 12's unmasked ones trip -Wmaybe-uninitialized, GCC bug 105593)
      const __m512i xr = _mm512_maskz_broadcast_i32x4(
          0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + b * 8)));
      __m512i s = _mm512_add_epi32(_mm512_loadu_si512(a + b * 8), corr);
      s = _mm512_dpbusd_epi32(s, _mm512_maskz_permutexvar_epi32(0xFFFF, idx0, xr), w0);
      s = _mm512_dpbusd_epi32(s, _mm512_maskz_permutexvar_epi32(0xFFFF, idx1, xr), w1);
      _mm512_storeu_si512(a + b * 8, s);
    }
  }
}

#endif  // WEFT_X86_KERNELS

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// Weight packing from the DRAM layout [block_out][block_in] int8. LOADs of weights are frequent
// (every tile of a blocked GEMM), so the shipped shapes get fixed-size versions the compiler
// unrolls, moving whole 32-bit quads.

// VNNI: dwords [g][rep][o] = the quad (o, 4g .. 4g + 3), then [rep][o] = corr[o]; rep = 2 for
// block_out 8 (both halves of a zmm), else 1.
template <int BI, int BO>
void pack_wgt_vnni(const GemmKernel&, const uint8_t* src, uint8_t* dst) {
  constexpr int kGroups = BI / 4, kRep = BO == 8 ? 2 : 1;
  auto* d = reinterpret_cast<uint32_t*>(dst);
  for (int o = 0; o < BO; ++o) {
    const auto* row = reinterpret_cast<const int8_t*>(src) + o * BI;
    int32_t sum = 0;
    for (int c = 0; c < BI; ++c) sum += row[c];
    for (int g = 0; g < kGroups; ++g) {
      uint32_t quad;
      std::memcpy(&quad, row + 4 * g, 4);
      for (int r = 0; r < kRep; ++r) d[(g * kRep + r) * BO + o] = quad;
    }
    for (int r = 0; r < kRep; ++r) d[(kGroups * kRep + r) * BO + o] = uint32_t(-128 * sum);
  }
}

#ifdef WEFT_X86_KERNELS
// The same layout for 16 x 16 in registers: the 16 rows of 4 quads are four zmm; quad column g
// is gathered by two two-source permutes (rows 0-7, rows 8-15) and a blend, and the row sums
// are vpdpbusd of the quads with unsigned ones.
WEFT_VNNI_TARGET void pack_wgt_vnni_16x16(const GemmKernel&, const uint8_t* src, uint8_t* dst) {
  __m512i z[4];
  for (int k = 0; k < 4; ++k) z[k] = _mm512_loadu_si512(src + 64 * k);
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum = _mm512_setzero_si512();
  for (int g = 0; g < 4; ++g) {
    // Lane o takes dword 4o + g of rows 0-7 (z0:z1) or 4(o - 8) + g of rows 8-15 (z2:z3).
    const __m512i idx = _mm512_set_epi32(28 + g, 24 + g, 20 + g, 16 + g, 12 + g, 8 + g, 4 + g, g,
                                         28 + g, 24 + g, 20 + g, 16 + g, 12 + g, 8 + g, 4 + g, g);
    const __m512i lo = _mm512_permutex2var_epi32(z[0], idx, z[1]);
    const __m512i hi = _mm512_permutex2var_epi32(z[2], idx, z[3]);
    const __m512i col = _mm512_mask_blend_epi32(0xFF00, lo, hi);
    _mm512_storeu_si512(dst + 64 * g, col);
    sum = _mm512_dpbusd_epi32(sum, ones, col);
  }
  _mm512_storeu_si512(
      dst + 256, _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_maskz_slli_epi32(0xFFFF, sum, 7)));
}
#endif

// AVX2: dwords [p][o] = the sign-extended pair (o, 2p), (o, 2p + 1).
template <int BI, int BO>
void pack_wgt_avx2(const GemmKernel&, const uint8_t* src, uint8_t* dst) {
  auto* d = reinterpret_cast<uint32_t*>(dst);
  for (int o = 0; o < BO; ++o) {
    const auto* row = reinterpret_cast<const int8_t*>(src) + o * BI;
    for (int p = 0; p < BI / 2; ++p) {
      d[p * BO + o] = uint32_t(uint16_t(int16_t{row[2 * p]})) |
                      uint32_t(uint16_t(int16_t{row[2 * p + 1]})) << 16;
    }
  }
}

// Generic: int16 [c][o], any shape.
void pack_wgt_generic(const GemmKernel& k, const uint8_t* src, uint8_t* dst) {
  const int bin = k.block_in(), bout = k.block_out();
  auto* d = reinterpret_cast<int16_t*>(dst);
  for (int o = 0; o < bout; ++o) {
    for (int c = 0; c < bin; ++c) d[c * bout + o] = static_cast<int8_t>(src[o * bin + c]);
  }
}

}  // namespace

GemmKernel::GemmKernel(int batch, int block_in, int block_out, KernelIsa isa)
    : batch_(batch), bin_(block_in), bout_(block_out), isa_(KernelIsa::kGeneric) {
  const bool b1_16_16 = batch == 1 && block_in == 16 && block_out == 16;
  const bool b8_8_8 = batch == 8 && block_in == 8 && block_out == 8;
  const bool b1_4_4 = batch == 1 && block_in == 4 && block_out == 4;
  const bool want_auto = isa == KernelIsa::kAuto;
#ifdef WEFT_X86_KERNELS
  if ((want_auto || isa == KernelIsa::kAvx512Vnni) && host_supports(KernelIsa::kAvx512Vnni) &&
      (b1_16_16 || b8_8_8)) {
    isa_ = KernelIsa::kAvx512Vnni;
    fn_ = b1_16_16 ? &rows_vnni_zmm<1, 16, 16> : &rows_vnni_8x8x8;
    pack_wgt_ = b1_16_16 ? &pack_wgt_vnni_16x16 : &pack_wgt_vnni<8, 8>;
  } else if ((want_auto || isa == KernelIsa::kAvx512Vnni || isa == KernelIsa::kAvx2) &&
             host_supports(KernelIsa::kAvx2) && (b1_16_16 || b8_8_8)) {
    isa_ = KernelIsa::kAvx2;
    fn_ = b1_16_16 ? &rows_avx2<1, 16, 16> : &rows_avx2<8, 8, 8>;
    pack_wgt_ = b1_16_16 ? &pack_wgt_avx2<16, 16> : &pack_wgt_avx2<8, 8>;
  }
#endif
  if (fn_ == nullptr) {
    isa_ = KernelIsa::kGeneric;
    pack_wgt_ = &pack_wgt_generic;
    if (b1_16_16) {
      fn_ = &rows_generic_fixed<1, 16, 16>;
    } else if (b8_8_8) {
      fn_ = &rows_generic_fixed<8, 8, 8>;
    } else if (b1_4_4) {
      fn_ = &rows_generic_fixed<1, 4, 4>;
    } else {
      fn_ = &rows_generic;
    }
  }
  const size_t in = static_cast<size_t>(batch) * block_in;
  const size_t wn = static_cast<size_t>(block_in) * block_out;
  if (isa_ == KernelIsa::kAvx512Vnni) {
    inp_bytes_ = in;
    wgt_bytes_ = round_up(wn + 4 * static_cast<size_t>(block_out), 64);
    if (b8_8_8) wgt_bytes_ = 192;  // every 32-byte quad group and the correction twice
  } else {
    inp_bytes_ = 2 * in;
    wgt_bytes_ = round_up(2 * wn, 64);
  }
  zeros_.assign(wn, 0);
}

void GemmKernel::pack_inp(const uint8_t* src, uint8_t* dst) const {
  const int n = batch_ * bin_;
  if (isa_ == KernelIsa::kAvx512Vnni) {
    if (src == nullptr) {
      std::memset(dst, 0x80, static_cast<size_t>(n));  // x = 0, biased
      return;
    }
    for (int i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i] ^ 0x80);
    return;
  }
  auto* d = reinterpret_cast<int16_t*>(dst);
  if (src == nullptr) {
    std::memset(d, 0, sizeof(int16_t) * static_cast<size_t>(n));
    return;
  }
  for (int i = 0; i < n; ++i) d[i] = static_cast<int8_t>(src[i]);
}

void GemmKernel::pack_wgt(const uint8_t* src, uint8_t* dst) const {
  pack_wgt_(*this, src ? src : zeros_.data(), dst);
}

}  // namespace weft::sim::cycle
