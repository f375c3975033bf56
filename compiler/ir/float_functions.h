// weft.exp, weft.tanh and weft.erf (Intrinsic::kExp, kTanh, kErf) defined once: float32
// functions written as fused multiply-adds, multiplies, one division and integer steps, which
// the LLVM backend emits for every lane of a vector (compiler/codegen/llvm/float_math.cc) and
// host loops call as exp_f32 / tanh_f32 / erf_f32, so the JIT kernels and the host interpreter
// (the int8 run's reference) compute the same bits. C's expf / tanhf / erff are a call per
// element, which kept every Sigmoid, SiLU, Softmax and GELU of the fp32 path scalar.
//
// Rules both sides follow: every multiply that feeds an add is an explicit fma (the JIT fuses
// multiply-adds freely, an explicit fma pins the rounding); a function's result is fenced in
// the JIT so that a caller's add (1 + exp(-x)) is not fused into its last product; branches are
// selects, every lane computing both sides; a NaN fails every comparison and stays NaN. The
// host's definitions (float_functions.cc) are compiled without contraction, out of line (a
// caller's add cannot fuse into them either), and twice on x86-64, with FMA instructions and
// without, the loader picking the host's.
//
// exp(x) = 2^n e^r, n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2]:
//   t = fma(x, 1/ln2, 1.5 * 2^23)     the add rounds x/ln2 to an integer n, then t's low bits
//   r = fma(n, -ln2_hi, x); r = fma(n, -ln2_lo, r)   ln2_hi has 9 significant bits, so
//                                     n * ln2_hi is exact (Cody and Waite's reduction)
//   p = 1 + r + r^2/2 + ... + r^7/5040   Horner; the truncation is below 6e-9 of p
//   exp(x) = p * 2^n1 * 2^(n - n1), n1 = n >> 1   two exact scalings, so that results near the
//                                     overflow and in the subnormal range round once
//   x is first clamped to [-104, 89] (beyond, exp is 0 or +inf in float32).
// tanh(x) = x Q(x^2) for |x| < 0.55; else sign(x) (1 - 2 / (exp(2|x|) + 1)).
// erf(x)  = x P(x^2) for |x| < 0.875; else sign(x) fma(-exp(-a^2), R(1/a), 1) with
//           a = min(|x|, 4), R(t) ~ erfc(1/t) exp(1/t^2) (erfc(4) is below half an ulp of 1).
// Q, P and R are least-squares fits on Chebyshev nodes (tanh: 1e-9 relative, erf: 1e-8 on
// each branch before rounding the coefficients to float).
// Measured against the correctly rounded functions (tests/compiler/float_functions_test.cc):
// exp within 1 ulp wherever its result is normal; tanh and erf within 2.
#pragma once

#include <cmath>
#include <cstdint>

namespace weft::compiler::ir {

namespace fexp {
inline constexpr float kLo = -104.0f;
inline constexpr float kHi = 89.0f;
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
inline constexpr uint32_t kRoundBits = 0x4B400000u;
inline constexpr float kLn2Hi = 0.693359375f;
inline constexpr float kLn2Lo = -2.12194440e-4f;
/// 1/k! for k = 7 down to 0, in Horner's order (highest first), as are the fits below.
inline constexpr float kPoly[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                  1.0f / 6,    0.5f,       1.0f,       1.0f};
}  // namespace fexp

namespace ftanh {
inline constexpr float kSmall = 0.55f;
/// tanh(x) / x as a polynomial in x^2.
inline constexpr float kQ[] = {-0.006238845642656088f, 0.021042168140411377f,
                               -0.05384336784482002f,  0.13332468271255493f,
                               -0.3333331048488617f,   1.0f};
}  // namespace ftanh

namespace ferf {
inline constexpr float kSmall = 0.875f;
inline constexpr float kMax = 4.0f;
/// erf(x) / x as a polynomial in x^2.
inline constexpr float kP[] = {-0.0006218503112904727f, 0.005035122390836477f,
                               -0.026793451979756355f,  0.11282510310411453f,
                               -0.3761255443096161f,    1.1283791065216064f};
/// erfc(x) exp(x^2) as a polynomial in 1/x, for x in [0.875, 4].
inline constexpr float kR[] = {-0.017795730382204056f, 0.13535985350608826f,
                               -0.44971659779548645f,  0.8401036858558655f,
                               -0.9183988571166992f,   0.4792269766330719f,
                               0.1280442178249359f,    -0.3470095694065094f,
                               0.015375824645161629f,  0.5622962713241577f,
                               9.75712391664274e-05f};
}  // namespace ferf

/// weft.exp, weft.tanh and weft.erf on the host: the JIT's float32 functions, bit for bit
/// (float_functions.cc).
float exp_f32(float x);
float tanh_f32(float x);
float erf_f32(float x);

/// The functions in the precision of a host loop: weft's in float, C's in double (the float64
/// reference, which checks the float paths, keeps the correctly rounded functions).
template <typename T>
T exp_of(T x) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return exp_f32(x);
  } else {
    return std::exp(x);
  }
}
template <typename T>
T tanh_of(T x) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return tanh_f32(x);
  } else {
    return std::tanh(x);
  }
}
template <typename T>
T erf_of(T x) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return erf_f32(x);
  } else {
    return std::erf(x);
  }
}

}  // namespace weft::compiler::ir
