// The int8 arithmetic of Weft's quantized graphs, written once as scalar functions: rounding
// shifts and divisions, quantization of floats, saturation, 32-bit wrapping and the
// accelerator's conv/dense epilogue. The int8 reference interpreter
// (compiler/graph/reference_int8), the executor's plain CPU kernels (runtime/graph/cpu_kernels)
// and the quantizer call these functions; the generated kernels (LLVM, CUDA) build the same
// rules as loop IR and their tests hold them to these functions bit for bit. Exponents are
// power-of-two scales: an int8 value q with exponent e stands for q * 2^e (quantize.h).
//
// Rounding, in one table:
//   shift_round        right shifts round half up (towards +inf); negative shifts are exact
//   round_div          divisions round half up (towards +inf)
//   quantize, round_half_even, round_clip, quantize_linear
//                      floats round half to even (IEEE default, C's nearbyint)
//   accel_epilogue     the accelerator's shift is a floor (its bias carries the rounding term)
//   saturate_int8      every int8 result saturates to [-128, 127]; STORE truncates instead
//                      (that is the hardware's narrowing, not a rounding of these functions)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace weft::compiler::ops {

/// The int8 range.
inline constexpr int64_t kInt8Min = -128;
inline constexpr int64_t kInt8Max = 127;

/// min(max(v, lo), hi) for lo <= hi.
constexpr int64_t clip(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

/// v saturated to [-128, 127].
constexpr int8_t saturate_int8(int64_t v) {
  return static_cast<int8_t>(clip(v, kInt8Min, kInt8Max));
}

/// v modulo 2^32 as a signed int32 (two's complement): the accumulator's ADD and MUL wrap.
constexpr int32_t wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

/// The requantizing shift by s bits, rounding half up:
///   s > 0:  floor((v + 2^(s-1)) / 2^s)   (5 >> 1 = 3, -5 >> 1 = -2, -6 >> 1 = -3)
///   s == 0: v
///   s < 0:  v * 2^-s                     (exact; a finer output scale)
/// Exact in int64 for |v| < 2^31 and -32 <= s <= 62.
constexpr int64_t shift_round(int64_t v, int s) {
  if (s > 0) return (v + (int64_t{1} << (s - 1))) >> s;
  return v * (int64_t{1} << -s);
}

/// num / den rounded half up: floor(num / den + 1/2) = floor((2 num + den) / (2 den)), den > 0
/// (7/2 = 4, -7/2 = -3, -5/2 = -2).
constexpr int64_t round_div(int64_t num, int64_t den) {
  const int64_t n = 2 * num + den, d = 2 * den;
  const int64_t q = n / d;  // truncates towards zero; floor below
  return (n % d != 0 && n < 0) ? q - 1 : q;
}

/// v rounded to an integer, ties to even (C's nearbyint in the default rounding mode; x86's
/// roundps with imm 8; LLVM's llvm.roundeven), in v's own precision.
template <typename F>
F round_half_even(F v) {
  return std::nearbyint(v);
}

/// round_half_even(v) clipped to [lo, hi] (NaN stays NaN): the quantizer's symmetric int8
/// weights ([-127, 127]) and its int32 biases.
inline double round_clip(double v, double lo, double hi) {
  return std::clamp(round_half_even(v), lo, hi);
}

/// The float x quantized to int8 with exponent e: round_half_even(x * 2^-e) saturated to
/// [-128, 127] (infinities saturate). x * 2^-e is exact in double for float x. NaN has no int8
/// value: it gives 0.
inline int8_t quantize(double x, int e) {
  const double v = std::ldexp(x, -e);
  if (v != v) return 0;
  return static_cast<int8_t>(round_clip(v, double(kInt8Min), double(kInt8Max)));
}

/// The int8 (or int32) q with exponent e as a float: q * 2^e (exact for |q| < 2^24).
inline float dequantize(int32_t q, int e) { return std::ldexp(static_cast<float>(q), e); }

/// ONNX's QuantizeLinear rounding, in the caller's precision F: round_half_even(scaled) +
/// zero_point, saturated to [-128, 127] (scaled = x / scale, computed by the caller in F).
template <typename F>
F quantize_linear(F scaled, F zero_point) {
  return std::min(std::max(round_half_even(scaled) + zero_point, F(kInt8Min)), F(kInt8Max));
}

/// An int8 value moved from exponent e_in to e_out (s = e_out - e_in), rounding half up and
/// saturating: weft.Requantize.
constexpr int8_t requantize(int64_t v, int s) { return saturate_int8(shift_round(v, s)); }

/// The int8 sum of a (shifted by sa = e_out - e_a) and b (by sb = e_out - e_b), each operand
/// rounded half up before the add, then saturated: int8 Add.
constexpr int8_t requantize_add(int64_t a, int sa, int64_t b, int sb) {
  return saturate_int8(shift_round(a, sa) + shift_round(b, sb));
}

/// The int8 mean of `count` int8 values summing to `sum`, from exponent e_in to e_out
/// (d = e_in - e_out): round_div(sum * 2^d, count) for d >= 0, round_div(sum, count * 2^-d)
/// otherwise, saturated: int8 AveragePool and GlobalAveragePool. count > 0.
constexpr int8_t requantize_average(int64_t sum, int64_t count, int d) {
  return saturate_int8(d >= 0 ? round_div(sum * (int64_t{1} << d), count)
                              : round_div(sum, count * (int64_t{1} << -d)));
}

/// The accelerator's epilogue of one QConv/QDense output element (quantize.h), as the
/// accelerator computes it in its int32 accumulator:
///   v = wrap32(wrap32(acc) + bias)   the GEMM's sum and the ADD of the bias wrap at 32 bits
///   v = v >> shift                   arithmetic shift, a floor; the accelerator takes shift in
///                                    [0, 31]; a larger one (a CPU kernel's, from a file's
///                                    scales) floors as 31 does: an int32 over 2^31 or more is
///                                    its sign, 0 or -1 (a shift past 31 would be undefined)
///   v = wrap32(v + residual)         the skip connection's int8 (0 without one)
///   clip(v, relu ? 0 : -128, 127)
constexpr int8_t accel_epilogue(int64_t acc, int32_t bias, int shift, int32_t residual,
                                bool relu) {
  int32_t v = wrap32(int64_t{wrap32(acc)} + bias);
  v = v >> (shift < 31 ? shift : 31);
  v = wrap32(int64_t{v} + residual);
  return static_cast<int8_t>(clip(v, relu ? 0 : kInt8Min, kInt8Max));
}

}  // namespace weft::compiler::ops
