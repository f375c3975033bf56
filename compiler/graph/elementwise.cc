// The float element-wise node kinds; see elementwise.h.
#include "compiler/graph/elementwise.h"

#include <limits>

namespace weft::compiler::graph {

std::optional<ops::Unary> unary_of(const Node& n) {
  ops::Unary u;
  switch (n.kind) {
    case OpKind::Sigmoid: u.fn = ops::Unary::kSigmoid; break;
    case OpKind::Tanh: u.fn = ops::Unary::kTanh; break;
    case OpKind::Erf: u.fn = ops::Unary::kErf; break;
    case OpKind::Sqrt: u.fn = ops::Unary::kSqrt; break;
    case OpKind::HardSwish: u.fn = ops::Unary::kHardSwish; break;
    case OpKind::Gelu:
      u.fn = n.get_string("approximate", "none") == "tanh" ? ops::Unary::kGeluTanh : ops::Unary::kGelu;
      break;
    case OpKind::HardSigmoid:
      u.fn = ops::Unary::kHardSigmoid;
      // In float, as ONNX holds them, so every path multiplies by the same number.
      u.alpha = static_cast<float>(n.get_float("alpha", 0.2));
      u.beta = static_cast<float>(n.get_float("beta", 0.5));
      break;
    default: return std::nullopt;
  }
  return u;
}

bool constant_clip_bounds(const Graph& g, const Node& clip, double* lo, double* hi) {
  *lo = clip.get_float("min", -std::numeric_limits<double>::infinity());
  *hi = clip.get_float("max", std::numeric_limits<double>::infinity());
  for (size_t k = 1; k < 3 && k < clip.inputs.size(); ++k) {
    if (clip.inputs[k] == kNone) continue;
    const Value& b = g.value(clip.inputs[k]);
    if (!b.is_constant() || b.type.dtype != DType::F32 || b.type.elements() < 1) return false;
    (k == 1 ? *lo : *hi) = b.data->f32()[0];
  }
  return true;
}

std::optional<ops::BinaryFn> binary_of(OpKind k) {
  switch (k) {
    case OpKind::Add: return ops::BinaryFn::kAdd;
    case OpKind::Sub: return ops::BinaryFn::kSub;
    case OpKind::Mul: return ops::BinaryFn::kMul;
    case OpKind::Div: return ops::BinaryFn::kDiv;
    case OpKind::Pow: return ops::BinaryFn::kPow;
    default: return std::nullopt;
  }
}

}  // namespace weft::compiler::graph
