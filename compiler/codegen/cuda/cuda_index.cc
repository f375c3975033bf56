// Index analyses of the CUDA emitter; see cuda_index.h.
#include "compiler/codegen/cuda/cuda_index.h"

#include <algorithm>
#include <numeric>

#include "compiler/ir/linear.h"

namespace weft::compiler::codegen {

namespace {

// The binary operation `op` of new operands (`e` when the operator is not arithmetic).
ir::Expr rebuild(ir::BinOp op, const ir::Expr& a, const ir::Expr& b, const ir::Expr& e) {
  switch (op) {
    case ir::BinOp::kShr:
    case ir::BinOp::kLt:
    case ir::BinOp::kGe:
    case ir::BinOp::kAnd:
      return e;
    default:
      return ir::binary(op, a, b);
  }
}

}  // namespace

ir::Expr flatten(const ir::Buffer& b, const std::vector<ir::Expr>& idx, size_t dims) {
  return ir::simplify(ir::flat_index(b, idx, dims));
}

int64_t known_multiple(const ir::Expr& e) {
  switch (e->kind) {
    case ir::NodeKind::kIntImm: {
      const int64_t v = static_cast<const ir::IntImm&>(*e).value;
      return v == 0 ? int64_t(1) << 40 : (v < 0 ? -v : v);
    }
    case ir::NodeKind::kCast:
      return known_multiple(static_cast<const ir::Cast&>(*e).value);
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::Binary&>(*e);
      const int64_t x = known_multiple(b.a), y = known_multiple(b.b);
      switch (b.op) {
        case ir::BinOp::kAdd:
        case ir::BinOp::kSub:
        case ir::BinOp::kMin:
        case ir::BinOp::kMax:
          return std::gcd(x, y);
        case ir::BinOp::kMul:
          return std::min<int64_t>(x * y, int64_t(1) << 40);
        case ir::BinOp::kFloorDiv:
          return ir::as_imm(b.b) && x % y == 0 ? x / y : 1;
        case ir::BinOp::kFloorMod:
          return ir::as_imm(b.b) ? std::gcd(x, y) : 1;
        default:
          return 1;
      }
    }
    default:
      return 1;
  }
}

std::optional<std::pair<ir::Expr, int64_t>> lane_form(const ir::Expr& e, const ir::Var& v,
                                                      int64_t lanes) {
  using R = std::optional<std::pair<ir::Expr, int64_t>>;
  switch (e->kind) {
    case ir::NodeKind::kVarRef:
      if (static_cast<const ir::VarRef&>(*e).var == v) return R({ir::imm(0), 1});
      return R({e, 0});
    case ir::NodeKind::kIntImm:
      return R({e, 0});
    case ir::NodeKind::kCast: {
      const auto& c = static_cast<const ir::Cast&>(*e);
      auto r = lane_form(c.value, v, lanes);
      if (!r || ir::is_float(c.dtype)) return std::nullopt;
      return R({ir::cast(c.dtype, r->first), r->second});
    }
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::Binary&>(*e);
      auto x = lane_form(b.a, v, lanes);
      auto y = lane_form(b.b, v, lanes);
      if (!x || !y) return std::nullopt;
      if (x->second == 0 && y->second == 0) {
        // Free of the lane, though a floor division below may have dropped it.
        if (x->first == b.a && y->first == b.b) return R({e, 0});
        return R({rebuild(b.op, x->first, y->first, e), 0});
      }
      const ir::IntImm* c = ir::as_imm(b.b);
      switch (b.op) {
        case ir::BinOp::kAdd:
          return R({ir::add(x->first, y->first), x->second + y->second});
        case ir::BinOp::kSub:
          return R({ir::sub(x->first, y->first), x->second - y->second});
        case ir::BinOp::kMul:
          if (c) return R({ir::mul(x->first, b.b), x->second * c->value});
          if (const ir::IntImm* k = ir::as_imm(b.a))
            return R({ir::mul(b.a, y->first), y->second * k->value});
          return std::nullopt;
        case ir::BinOp::kFloorDiv:
        case ir::BinOp::kFloorMod: {
          const int64_t span = x->second * lanes;
          if (!c || y->second != 0 || x->second <= 0 || c->value % span != 0 ||
              known_multiple(x->first) % span != 0) {
            return std::nullopt;
          }
          if (b.op == ir::BinOp::kFloorDiv) return R({ir::floordiv(x->first, b.b), 0});
          return R({ir::floormod(x->first, b.b), x->second});
        }
        default:
          return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

bool multiple_of(const ir::Expr& e, int64_t k) {
  if (known_multiple(e) % k == 0) return true;
  const auto f = ir::linear_form(e);
  if (!f) return false;
  if (f->constant % k != 0) return false;
  for (const auto& [v, c] : f->coef) {
    if (c % k != 0) return false;
  }
  return true;
}

}  // namespace weft::compiler::codegen
