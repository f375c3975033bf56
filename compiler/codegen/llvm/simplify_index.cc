// Range-aware index simplification; see simplify_index.h.
#include "compiler/codegen/llvm/simplify_index.h"

#include <optional>
#include <unordered_map>
#include <utility>

#include "compiler/ir/linear.h"
#include "compiler/ir/visitor.h"

namespace weft::compiler::codegen {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

class IndexSimplifier : public ir::Mutator {
 protected:
  ir::Stmt mutate_For(const ir::For& n, const ir::Stmt& self) override {
    const ir::IntImm* mn = ir::as_imm(n.min);
    const ir::IntImm* ext = ir::as_imm(n.extent);
    if (mn && ext && ext->value > 0) {
      ranges_[n.var.get()] = {mn->value, mn->value + ext->value - 1};
    }
    ir::Stmt out = ir::Mutator::mutate_For(n, self);
    ranges_.erase(n.var.get());
    return out;
  }

  ir::Expr mutate_Binary(const ir::Binary& n, const ir::Expr& self) override {
    ir::Expr m = ir::Mutator::mutate_Binary(n, self);
    if (m->kind != ir::NodeKind::kBinary || ir::is_float(m->dtype)) return m;
    const auto& b = static_cast<const ir::Binary&>(*m);
    if (b.op == ir::BinOp::kFloorDiv || b.op == ir::BinOp::kFloorMod) return div_mod(b, m);
    if (b.op == ir::BinOp::kMin || b.op == ir::BinOp::kMax) return min_max(b, m);
    return m;
  }

 private:
  // The range [lo, hi] of an affine form over the known loop ranges.
  std::optional<std::pair<int64_t, int64_t>> range(const ir::LinearForm& f) const {
    int64_t lo = f.constant, hi = f.constant;
    for (const ir::Var& v : f.order) {
      const int64_t c = f.coef.at(v.get());
      if (c == 0) continue;
      auto it = ranges_.find(v.get());
      if (it == ranges_.end()) return std::nullopt;
      const int64_t a = c * it->second.first, z = c * it->second.second;
      lo += std::min(a, z);
      hi += std::max(a, z);
    }
    return std::make_pair(lo, hi);
  }

  ir::Expr div_mod(const ir::Binary& b, const ir::Expr& self) const {
    const ir::IntImm* d = ir::as_imm(b.b);
    if (!d || d->value <= 0) return self;
    auto f = ir::linear_form(b.a);
    if (!f) return self;
    ir::LinearForm q, r;
    for (const ir::Var& v : f->order) {
      const int64_t c = f->coef.at(v.get());
      ir::LinearForm& part = c % d->value == 0 ? q : r;
      part.order.push_back(v);
      part.coef[v.get()] = c % d->value == 0 ? c / d->value : c;
    }
    r.constant = f->constant;
    auto rr = range(r);
    if (!rr) return self;
    const int64_t q0 = floor_div(rr->first, d->value);
    if (floor_div(rr->second, d->value) != q0) return self;
    if (b.op == ir::BinOp::kFloorDiv) {
      q.constant = q0;
      return ir::cast(b.dtype, ir::from_linear(q));
    }
    r.constant -= q0 * d->value;
    return ir::cast(b.dtype, ir::from_linear(r));
  }

  ir::Expr min_max(const ir::Binary& b, const ir::Expr& self) const {
    auto diff = ir::linear_form(ir::sub(b.a, b.b));
    if (!diff) return self;
    auto rr = range(*diff);
    if (!rr) return self;
    const bool is_min = b.op == ir::BinOp::kMin;
    if (rr->second <= 0) return ir::cast(b.dtype, is_min ? b.a : b.b);  // a <= b always
    if (rr->first >= 0) return ir::cast(b.dtype, is_min ? b.b : b.a);   // a >= b always
    return self;
  }

  std::unordered_map<const ir::VarObj*, std::pair<int64_t, int64_t>> ranges_;
};

}  // namespace

ir::Stmt simplify_index(const ir::Stmt& s) { return ir::simplify(IndexSimplifier().mutate(s)); }

}  // namespace weft::compiler::codegen
