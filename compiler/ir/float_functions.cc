// The host's weft.exp, weft.tanh and weft.erf; see float_functions.h. Each is built twice on
// x86-64 (GCC and Clang's target_clones), with FMA instructions and without, and the loader
// picks the host's: without the FMA build, every std::fma is a call of the C library's fmaf,
// which made the float interpreter's exp (calibration's Softmax, GELU and Sigmoid) slower than
// C's expf. An fma rounds once either way, so both builds compute the same bits.
#include "compiler/ir/float_functions.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define WEFT_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define WEFT_FMA_CLONES
#endif

namespace weft::compiler::ir {

namespace {

// Horner's rule in fma: c[0] x^(n-1) + ... + c[n-1].
template <size_t N>
inline float horner_f32(const float (&c)[N], float x) {
  float p = c[0];
  for (size_t k = 1; k < N; ++k) p = std::fma(p, x, c[k]);
  return p;
}

inline float pow2(int32_t e) {
  const uint32_t b = static_cast<uint32_t>(e + 127) << 23;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace

WEFT_FMA_CLONES float exp_f32(float x) {
  using namespace fexp;
  x = x < kLo ? kLo : x;
  x = x > kHi ? kHi : x;
  const float t = std::fma(x, kLog2e, kRound);
  const float n = t - kRound;
  float r = std::fma(n, -kLn2Hi, x);
  r = std::fma(n, -kLn2Lo, r);
  const float p = horner_f32(kPoly, r);
  uint32_t tb;
  std::memcpy(&tb, &t, 4);
  const int32_t ni = static_cast<int32_t>(tb - kRoundBits);
  const int32_t n1 = ni >> 1;
  return p * pow2(n1) * pow2(ni - n1);
}

WEFT_FMA_CLONES float tanh_f32(float x) {
  const float a = x < 0.0f ? -x : x;
  const float small = x * horner_f32(ftanh::kQ, x * x);
  const float v = 1.0f - 2.0f / (exp_f32(a * 2.0f) + 1.0f);
  const float large = x < 0.0f ? -v : v;
  return a < ftanh::kSmall ? small : large;
}

WEFT_FMA_CLONES float erf_f32(float x) {
  const float a = x < 0.0f ? -x : x;
  const float small = x * horner_f32(ferf::kP, x * x);
  const float ac = a > ferf::kMax ? ferf::kMax : a;
  const float e = exp_f32(-(ac * ac));
  const float v = std::fma(-e, horner_f32(ferf::kR, 1.0f / ac), 1.0f);
  const float large = x < 0.0f ? -v : v;
  return a < ferf::kSmall ? small : large;
}

}  // namespace weft::compiler::ir
