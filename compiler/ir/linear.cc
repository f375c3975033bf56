// Affine forms and the simplifier built on them; see linear.h.
#include "compiler/ir/linear.h"

#include "compiler/ir/visitor.h"

namespace weft::compiler::ir {

namespace {

bool collect(const Expr& e, LinearForm& out, int64_t scale) {
  switch (e->kind) {
    case NodeKind::kIntImm:
      out.constant += scale * static_cast<const IntImm&>(*e).value;
      return true;
    case NodeKind::kVarRef: {
      const Var& v = static_cast<const VarRef&>(*e).var;
      if (!out.coef.count(v.get())) out.order.push_back(v);
      out.coef[v.get()] += scale;
      return true;
    }
    case NodeKind::kBinary: {
      const auto& b = static_cast<const Binary&>(*e);
      if (b.op == BinOp::kAdd) return collect(b.a, out, scale) && collect(b.b, out, scale);
      if (b.op == BinOp::kSub) return collect(b.a, out, scale) && collect(b.b, out, -scale);
      if (b.op == BinOp::kMul) {
        if (const IntImm* k = as_imm(b.b)) return collect(b.a, out, scale * k->value);
        if (const IntImm* k = as_imm(b.a)) return collect(b.b, out, scale * k->value);
      }
      return false;
    }
    default:
      return false;
  }
}

class Simplifier : public Mutator {
 protected:
  Expr mutate_Binary(const Binary& n, const Expr& self) override {
    Expr m = Mutator::mutate_Binary(n, self);
    if (m->kind != NodeKind::kBinary) return m;
    const auto op = static_cast<const Binary&>(*m).op;
    if (op != BinOp::kAdd && op != BinOp::kSub && op != BinOp::kMul) return m;
    if (m->dtype != DType::kInt64) return m;  // only index arithmetic: values keep their form
    auto f = linear_form(m);
    return f ? from_linear(*f) : m;
  }
};

}  // namespace

std::optional<LinearForm> linear_form(const Expr& e) {
  LinearForm f;
  if (!collect(e, f, 1)) return std::nullopt;
  return f;
}

Expr from_linear(const LinearForm& f) {
  Expr out;
  for (const Var& v : f.order) {
    const int64_t c = f.coef.at(v.get());
    if (c == 0) continue;
    if (!out) {
      out = c == 1 ? ref(v) : mul(ref(v), imm(c));
    } else if (c > 0) {
      out = add(out, c == 1 ? ref(v) : mul(ref(v), imm(c)));
    } else {
      out = sub(out, c == -1 ? ref(v) : mul(ref(v), imm(-c)));
    }
  }
  if (!out) return imm(f.constant);
  if (f.constant > 0) return add(out, imm(f.constant));
  if (f.constant < 0) return sub(out, imm(-f.constant));
  return out;
}

Expr simplify(const Expr& e) { return Simplifier().mutate(e); }
Stmt simplify(const Stmt& s) { return Simplifier().mutate(s); }

}  // namespace weft::compiler::ir
