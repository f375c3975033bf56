// The float element-wise functions of the graph's ONNX operators (Sigmoid, Tanh, Erf, Sqrt,
// HardSigmoid, HardSwish, Gelu; Add, Sub, Mul, Div, Pow), written once twice: as scalar templates
// in T (the host interpreter's float and double loops, compiler/graph/interpret.h) and as
// loop IR (the CPU operators of compiler/ops/cpu/elementwise.h), the same operations in the
// same order. exp, tanh and erf are weft's (compiler/ir/float_functions.h: vectorized in the
// JIT; a float loop calls ir::exp_of / tanh_of / erf_of, a double loop C's); pow and sqrt are
// C's. The IR calls them as its float math intrinsics (compiler/ir/intrinsics.h), so the fp32
// JIT kernels and a float loop compute the same bits.
//   sigmoid(x)         = 1 / (1 + exp(-x))
//   silu(x)            = x sigmoid(x) (no ONNX operator: a Sigmoid and a Mul, as exporters
//                        write it, folded into the convolution before them)
//   hard_sigmoid(x)    = min(max((x + beta / alpha) alpha, 0), 1)   (ONNX: alpha x + beta;
//                        alpha 0.2, beta 0.5 by default; alpha 0: min(max(beta, 0), 1))
//   hard_swish(x)      = x hard_sigmoid(x) with alpha 1/6, beta 1/2: x min(max((x + 3) / 6 ...
//   gelu(x)            = x/2 (1 + erf(x / sqrt(2)));  tanh form (ONNX approximate="tanh"):
//                        x/2 (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2)))
// An add before the multiply, never a multiply feeding an add: the JIT may fuse the latter into
// one rounding (an FMA) and C++ may not, and the int8 path's CPU kernels and its reference must
// agree bit for bit. The one exception is the tanh GELU's polynomial (1 + 0.044715 x x): there
// the JIT and the loops may differ in the last bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "compiler/ir/float_functions.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::ops {

/// A one-operand float function with its parameters (alpha, beta: HardSigmoid's).
struct Unary {
  enum Fn {
    kSigmoid,
    kTanh,
    kErf,
    kSqrt,
    kHardSigmoid,
    kHardSwish,
    kGelu,
    kGeluTanh,
    kSilu
  } fn = kSigmoid;
  double alpha = 0, beta = 0;
  /// "sigmoid", "hard_sigmoid(0.2,0.5)": a name for kernel caches and listings.
  std::string str() const;
};

/// A two-operand float function (the operands broadcast; compiler/graph/interpret_kernels.h).
enum class BinaryFn { kAdd, kSub, kMul, kDiv, kPow };
/// "add", "sub", "mul", "div", "pow".
const char* binary_name(BinaryFn f);

/// HardSwish's fixed HardSigmoid parameters (ONNX HardSwish-14).
inline constexpr double kHardSwishAlpha = 1.0 / 6.0;
inline constexpr double kHardSwishBeta = 0.5;

/// GELU's constants: 1/sqrt(2) (the erf form), sqrt(2/pi) and 0.044715 (the tanh form).
inline constexpr double kSqrtHalf = 0.70710678118654752440;
inline constexpr double kGeluTanhScale = 0.79788456080286535588;
inline constexpr double kGeluTanhCubic = 0.044715;

/// The sums along a row of Softmax and LayerNorm (the host loops' and the JIT kernels', so
/// that they agree): a row's terms t_0 .. t_{n-1} are added into kRowSumLanes partial sums,
/// t_k into partial k % kRowSumLanes in increasing k (a vector of lanes in the JIT), then the
/// partials pairwise: ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)). (One sum in index
/// order was a chain of n dependent adds per row: most of a ViT Softmax's time.)
inline constexpr int64_t kRowSumLanes = 8;
template <typename T, typename Add>
T row_sum_total(const T* p, Add add) {
  return add(add(add(p[0], p[1]), add(p[2], p[3])), add(add(p[4], p[5]), add(p[6], p[7])));
}

/// u(x) in T.
template <typename T>
T apply(const Unary& u, T x) {
  auto hard_sigmoid = [](T v, double a, double b) {
    const T t = a == 0 ? T(b) : (v + T(b / a)) * T(a);
    const T lo = t > T(0) ? t : T(0);  // the IR's max and min (a NaN becomes 0)
    return lo < T(1) ? lo : T(1);
  };
  switch (u.fn) {
    case Unary::kSigmoid: return T(1) / (T(1) + ir::exp_of(-x));
    case Unary::kSilu: return x * (T(1) / (T(1) + ir::exp_of(-x)));
    case Unary::kTanh: return ir::tanh_of(x);
    case Unary::kErf: return ir::erf_of(x);
    case Unary::kSqrt: return std::sqrt(x);
    case Unary::kHardSigmoid: return hard_sigmoid(x, u.alpha, u.beta);
    case Unary::kHardSwish: return x * hard_sigmoid(x, kHardSwishAlpha, kHardSwishBeta);
    case Unary::kGelu: return x * T(0.5) * (T(1) + ir::erf_of(x * T(kSqrtHalf)));
    case Unary::kGeluTanh:
      return x * T(0.5) *
             (T(1) + ir::tanh_of(x * T(kGeluTanhScale) * (T(1) + x * x * T(kGeluTanhCubic))));
  }
  return x;
}

/// f(a, b) in T.
template <typename T>
T apply(BinaryFn f, T a, T b) {
  switch (f) {
    case BinaryFn::kAdd: return a + b;
    case BinaryFn::kSub: return a - b;
    case BinaryFn::kMul: return a * b;
    case BinaryFn::kDiv: return a / b;
    case BinaryFn::kPow: return b == T(2) ? a * a : std::pow(a, b);  // see pow_is_square
  }
  return a;
}

/// Pow by 2 is a * a (correctly rounded, as PyTorch's pow(x, 2); the C library's powf rounds
/// some subnormal squares the other way, and is several times slower). The scalar template
/// above computes it so, and so does a JIT kernel whose exponent is a constant 2 (a
/// LayerNorm written out); binary_ir with an exponent only known at run time calls pow.
inline bool pow_is_square(BinaryFn f, const float* b, int64_t b_count) {
  return f == BinaryFn::kPow && b_count == 1 && b[0] == 2.0f;
}

/// u(x) as float32 loop IR.
ir::Expr unary_ir(const Unary& u, ir::Expr x);
/// f(a, b) as float32 loop IR.
ir::Expr binary_ir(BinaryFn f, ir::Expr a, ir::Expr b);

}  // namespace weft::compiler::ops
