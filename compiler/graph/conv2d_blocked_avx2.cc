// The calibration convolution in AVX2 vectors; see interpret_kernels.h (conv2d_blocked).
#include "compiler/graph/interpret_kernels.h"

namespace weft::compiler::graph {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace {

typedef float V8 __attribute__((vector_size(32)));

// AVX2 without FMA: the template's multiplies and adds stay two roundings each, as in the plain
// loops (-std=c++17 also keeps GCC from contracting them).
__attribute__((target("avx2"))) void run(const float* x, const float* w, const float* bias,
                                         float* y, const Window2d& s, int64_t o, int64_t group) {
  conv2d_blocked<float, V8, 8, 8, 8>(x, w, bias, y, s, o, group);
}

}  // namespace

bool conv2d_blocked_avx2(const float* x, const float* w, const float* bias, float* y,
                         const Window2d& s, int64_t o, int64_t group) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (!avx2) return false;
  run(x, w, bias, y, s, o, group);
  return true;
}

#else

bool conv2d_blocked_avx2(const float*, const float*, const float*, float*, const Window2d&, int64_t,
                         int64_t) {
  return false;
}

#endif

}  // namespace weft::compiler::graph
