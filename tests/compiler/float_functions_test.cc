// weft.exp, weft.tanh and weft.erf's host definitions (compiler/ir/float_functions.h) against
// the correctly rounded functions: within 1 ulp (exp, where its result is normal) and 2 ulp
// (tanh, erf) over sweeps of the floats, the right limits, signed zeros and NaN. That the JIT
// computes the same bits is checked with its kernels (tests/runtime/graph/llvm_kernels_test.cc,
// LlvmKernels.FloatFunctionsAreOneDefinitionOnTheHostAndInTheJit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "compiler/ir/float_functions.h"

namespace weft::compiler::ir {
namespace {

int64_t ordered(float f) {  // floats in order as integers, so that ulps are a difference
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}

float from_ordered(int64_t k) {
  const int32_t i = k < 0 ? int32_t(-k) | int32_t(0x80000000u) : int32_t(k);
  float x;
  std::memcpy(&x, &i, 4);
  return x;
}

// The largest distance in ulps from the correctly rounded `g` over every `step`th float of
// [lo, hi].
template <typename F, typename G>
int64_t worst_ulps(F f, G g, float lo, float hi, int64_t step, float* at) {
  int64_t worst = 0;
  for (int64_t k = ordered(lo); k <= ordered(hi); k += step) {
    const float x = from_ordered(k);
    const float want = static_cast<float>(g(static_cast<double>(x)));
    const int64_t ulps = std::llabs(ordered(f(x)) - ordered(want));
    if (ulps > worst) worst = ulps, *at = x;
  }
  return worst;
}

TEST(FloatFunctions, WithinOneOrTwoUlpOfTheCorrectlyRoundedFunctions) {
  float at = 0;
  // Every 397th float: about 5.6 million values for exp (its normal results), 5.4 million
  // for tanh and 5.3 million for erf (every tiny value around 0 included).
  EXPECT_LE(worst_ulps(exp_f32, [](double x) { return std::exp(x); }, -87.3f, 88.7f, 397, &at), 1)
      << "exp at " << at;
  EXPECT_LE(worst_ulps(tanh_f32, [](double x) { return std::tanh(x); }, -20.f, 20.f, 397, &at), 2)
      << "tanh at " << at;
  EXPECT_LE(worst_ulps(erf_f32, [](double x) { return std::erf(x); }, -6.f, 6.f, 397, &at), 2)
      << "erf at " << at;
}

TEST(FloatFunctions, LimitsSubnormalsZerosAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(exp_f32(0.f), 1.f);
  EXPECT_EQ(exp_f32(-0.f), 1.f);
  EXPECT_EQ(exp_f32(inf), inf);
  EXPECT_EQ(exp_f32(89.f), inf);
  EXPECT_EQ(exp_f32(1e30f), inf);
  EXPECT_EQ(exp_f32(-inf), 0.f);
  EXPECT_EQ(exp_f32(-1e30f), 0.f);
  // Just below the overflow: finite and within an ulp.
  const float big = exp_f32(88.72f);
  EXPECT_TRUE(std::isfinite(big));
  EXPECT_NEAR(big / std::exp(static_cast<double>(88.72f)), 1.0, 1.2e-7);
  // Subnormal results round once: within one subnormal step of the true value.
  for (float x : {-88.f, -95.f, -100.f, -103.f})
    EXPECT_NEAR(exp_f32(x), std::exp(static_cast<double>(x)), std::ldexp(1.0, -149)) << x;
  for (float s : {1.f, -1.f}) {
    EXPECT_EQ(tanh_f32(s * inf), s);
    EXPECT_EQ(tanh_f32(s * 50.f), s);
    EXPECT_EQ(erf_f32(s * inf), s);
    EXPECT_EQ(erf_f32(s * 5.f), s);
    EXPECT_EQ(tanh_f32(s * 1e-30f), s * 1e-30f);
  }
  EXPECT_TRUE(std::signbit(tanh_f32(-0.f)));
  EXPECT_TRUE(std::signbit(erf_f32(-0.f)));
  EXPECT_EQ(erf_f32(0.f), 0.f);
  for (float n : {nan, -nan}) {
    EXPECT_TRUE(std::isnan(exp_f32(n)));
    EXPECT_TRUE(std::isnan(tanh_f32(n)));
    EXPECT_TRUE(std::isnan(erf_f32(n)));
  }
  // The double forms are C's.
  EXPECT_EQ(exp_of(1.5), std::exp(1.5));
  EXPECT_EQ(tanh_of(0.3), std::tanh(0.3));
  EXPECT_EQ(erf_of(-0.7), std::erf(-0.7));
}

}  // namespace
}  // namespace weft::compiler::ir
