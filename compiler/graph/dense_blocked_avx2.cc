// The interpreter's dense products in AVX2 vectors; see interpret_kernels.h (dense_blocked).
#include "compiler/graph/interpret_kernels.h"

namespace weft::compiler::graph {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace {

typedef float V8 __attribute__((vector_size(32)));

// AVX2 without FMA: a multiply and an add, two roundings, as in the plain loops.
__attribute__((target("avx2"))) void run(const float* a, const float* w, float* c, int64_t m,
                                         int64_t n, int64_t k, bool w_kn, const float* init) {
  dense_blocked<float, V8, 8, 4, 16>(a, w, c, m, n, k, w_kn, init);
}

}  // namespace

bool dense_blocked_avx2(const float* a, const float* w, float* c, int64_t m, int64_t n,
                        int64_t k, bool w_kn, const float* init) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (!avx2) return false;
  run(a, w, c, m, n, k, w_kn, init);
  return true;
}

#else

bool dense_blocked_avx2(const float*, const float*, float*, int64_t, int64_t, int64_t, bool,
                        const float*) {
  return false;
}

#endif

}  // namespace weft::compiler::graph
