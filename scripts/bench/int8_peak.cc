// bench_int8_peak: the host's int8 multiply-accumulate peak on one core, the ceiling of any
// simulator that really computes its GEMMs. Measures the core clock (a chain of dependent
// adds, one per cycle), then the throughput of the int8 dot-product instructions the cycle
// model's kernels use, in independent chains: vpdpbusd zmm (AVX-512 VNNI, 64 MACs) and
// vpmaddwd + vpaddd ymm (AVX2, 16 MACs), by thread CPU time. Prints JSON.
#include <cstdint>
#include <cstdio>

#include "scripts/bench/bench_clock.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define WEFT_X86 1
#endif

namespace {

constexpr uint64_t kIters = 20000000;

__attribute__((noinline)) uint64_t add_chain(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
#ifdef WEFT_X86
    asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
#else
    x += 4;
#endif
  }
  return x;
}

#ifdef WEFT_X86
// 12 independent accumulators, so that throughput, not latency, bounds the loop.
#define WEFT_12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((noinline, target("avx512f,avx512vnni"))) void vnni_loop(uint64_t n) {
#define WEFT_ZERO(k) "vpxord %%zmm" #k ", %%zmm" #k ", %%zmm" #k "\n\t"
#define WEFT_DP(k) "vpdpbusd %%zmm13, %%zmm14, %%zmm" #k "\n\t"
  asm volatile(WEFT_12(WEFT_ZERO)::
                   : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                     "xmm10", "xmm11");
  for (uint64_t i = 0; i < n; ++i) {
    asm volatile(WEFT_12(WEFT_DP)::
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11");
  }
}

__attribute__((noinline, target("avx2"))) void madd_loop(uint64_t n) {
#define WEFT_MADD(k) \
  "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\tvpaddd %%ymm15, %%ymm" #k ", %%ymm" #k "\n\t"
  for (uint64_t i = 0; i < n; ++i) {
    asm volatile(WEFT_12(WEFT_MADD)::
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm15");
  }
}
#endif

}  // namespace

int main() {
  weft::bench::Stopwatch sw;
  volatile uint64_t sink = add_chain(5 * kIters);
  (void)sink;
  const double ghz = 4.0 * 5 * kIters / sw.cpu() / 1e9;
  std::printf("{\n  \"clock_ghz\": %.3f", ghz);
#ifdef WEFT_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni")) {
    const weft::bench::Stopwatch s;
    vnni_loop(kIters);
    const double per_s = 12.0 * kIters / s.cpu();
    std::printf(",\n  \"vpdpbusd_zmm_per_cycle\": %.2f,\n  \"vpdpbusd_zmm_gmacs\": %.1f",
                per_s / (ghz * 1e9), per_s * 64 / 1e9);
  }
  if (__builtin_cpu_supports("avx2")) {
    const weft::bench::Stopwatch s;
    madd_loop(kIters);
    const double per_s = 12.0 * kIters / s.cpu();
    std::printf(",\n  \"vpmaddwd_ymm_per_cycle\": %.2f,\n  \"vpmaddwd_ymm_gmacs\": %.1f",
                per_s / (ghz * 1e9), per_s * 16 / 1e9);
  }
#endif
  std::printf("\n}\n");
  return 0;
}
