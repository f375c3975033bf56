// The float element-wise functions as loop IR and their names; see float_eltwise.h.
#include "compiler/ops/float_eltwise.h"

#include <sstream>


namespace weft::compiler::ops {

namespace {

using ir::Expr;
using I = ir::Intrinsic;

Expr f32(Expr x) { return ir::cast(ir::DType::kFloat32, std::move(x)); }

// min(max((x + beta / alpha) alpha, 0), 1), as the scalar template (float constants).
Expr hard_sigmoid(const Expr& x, double alpha, double beta) {
  const Expr v = alpha == 0 ? ir::fimm(static_cast<float>(beta))
                            : ir::mul(ir::add(x, ir::fimm(static_cast<float>(beta / alpha))),
                                      ir::fimm(static_cast<float>(alpha)));
  return ir::min(ir::max(v, ir::fimm(0.0)), ir::fimm(1.0));
}

Expr sigmoid(const Expr& x) {
  const Expr e = ir::float_math(I::kExp, ir::mul(x, ir::fimm(-1.0)));
  return ir::float_math(I::kFDiv, ir::fimm(1.0), ir::add(ir::fimm(1.0), e));
}

}  // namespace

std::string Unary::str() const {
  switch (fn) {
    case kSigmoid: return "sigmoid";
    case kSilu: return "silu";
    case kTanh: return "tanh";
    case kErf: return "erf";
    case kSqrt: return "sqrt";
    case kHardSwish: return "hard_swish";
    case kGelu: return "gelu";
    case kGeluTanh: return "gelu_tanh";
    case kHardSigmoid: {
      std::ostringstream s;
      s.precision(9);
      s << "hard_sigmoid(" << alpha << "," << beta << ")";
      return s.str();
    }
  }
  return "?";
}

const char* binary_name(BinaryFn f) {
  switch (f) {
    case BinaryFn::kAdd: return "add";
    case BinaryFn::kSub: return "sub";
    case BinaryFn::kMul: return "mul";
    case BinaryFn::kDiv: return "div";
    case BinaryFn::kPow: return "pow";
  }
  return "?";
}

Expr unary_ir(const Unary& u, Expr x) {
  x = f32(std::move(x));
  switch (u.fn) {
    case Unary::kSigmoid: return sigmoid(x);
    case Unary::kSilu: return ir::mul(x, sigmoid(x));  // the Mul node's x * Sigmoid(x)
    case Unary::kTanh: return ir::float_math(I::kTanh, x);
    case Unary::kErf: return ir::float_math(I::kErf, x);
    case Unary::kSqrt: return ir::float_math(I::kSqrt, x);
    case Unary::kHardSigmoid: return hard_sigmoid(x, u.alpha, u.beta);
    case Unary::kHardSwish: return ir::mul(x, hard_sigmoid(x, kHardSwishAlpha, kHardSwishBeta));
    case Unary::kGelu: {
      const Expr e = ir::float_math(I::kErf, ir::mul(x, ir::fimm(kSqrtHalf)));
      return ir::mul(ir::mul(x, ir::fimm(0.5)), ir::add(ir::fimm(1.0), e));
    }
    case Unary::kGeluTanh: {
      const Expr poly = ir::add(ir::fimm(1.0), ir::mul(ir::mul(x, x), ir::fimm(kGeluTanhCubic)));
      const Expr t = ir::float_math(I::kTanh, ir::mul(ir::mul(x, ir::fimm(kGeluTanhScale)), poly));
      return ir::mul(ir::mul(x, ir::fimm(0.5)), ir::add(ir::fimm(1.0), t));
    }
  }
  return x;
}

Expr binary_ir(BinaryFn f, Expr a, Expr b) {
  a = f32(std::move(a));
  b = f32(std::move(b));
  switch (f) {
    case BinaryFn::kAdd: return ir::add(a, b);
    case BinaryFn::kSub: return ir::sub(a, b);
    case BinaryFn::kMul: return ir::mul(a, b);
    case BinaryFn::kDiv: return ir::float_math(I::kFDiv, a, b);
    case BinaryFn::kPow: return ir::float_math(I::kPow, a, b);
  }
  return a;
}

}  // namespace weft::compiler::ops
