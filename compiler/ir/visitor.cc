// Default traversals of the loop IR; see visitor.h.
#include "compiler/ir/visitor.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::ir {

void Visitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define WEFT_IR_DISPATCH(N) \
  case NodeKind::k##N:      \
    return visit_##N(static_cast<const N&>(*e));
    WEFT_IR_EXPR_NODES(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
    default:
      break;
  }
  throw InternalError("Visitor: statement node in expression position");
}

void Visitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define WEFT_IR_DISPATCH(N) \
  case NodeKind::k##N:      \
    return visit_##N(static_cast<const N&>(*s));
    WEFT_IR_STMT_NODES(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
    default:
      break;
  }
  throw InternalError("Visitor: expression node in statement position");
}

void Visitor::visit_IntImm(const IntImm&) {}
void Visitor::visit_FloatImm(const FloatImm&) {}
void Visitor::visit_VarRef(const VarRef&) {}
void Visitor::visit_Binary(const Binary& n) {
  visit(n.a);
  visit(n.b);
}
void Visitor::visit_Cast(const Cast& n) { visit(n.value); }
void Visitor::visit_Load(const Load& n) {
  for (const Expr& i : n.indices) visit(i);
}
void Visitor::visit_Call(const Call& n) {
  for (const Expr& a : n.args) visit(a);
}
void Visitor::visit_For(const For& n) {
  visit(n.min);
  visit(n.extent);
  visit(n.body);
}
void Visitor::visit_Store(const Store& n) {
  for (const Expr& i : n.indices) visit(i);
  visit(n.value);
}
void Visitor::visit_Seq(const Seq& n) {
  for (const Stmt& s : n.stmts) visit(s);
}
void Visitor::visit_Allocate(const Allocate& n) { visit(n.body); }
void Visitor::visit_IfThenElse(const IfThenElse& n) {
  visit(n.cond);
  visit(n.then_case);
  visit(n.else_case);
}
void Visitor::visit_Evaluate(const Evaluate& n) { visit(n.value); }
void Visitor::visit_AttrStmt(const AttrStmt& n) {
  visit(n.value);
  visit(n.body);
}

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define WEFT_IR_DISPATCH(N) \
  case NodeKind::k##N:      \
    return mutate_##N(static_cast<const N&>(*e), e);
    WEFT_IR_EXPR_NODES(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
    default:
      break;
  }
  throw InternalError("Mutator: statement node in expression position");
}

Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define WEFT_IR_DISPATCH(N) \
  case NodeKind::k##N:      \
    return mutate_##N(static_cast<const N&>(*s), s);
    WEFT_IR_STMT_NODES(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
    default:
      break;
  }
  throw InternalError("Mutator: expression node in statement position");
}

namespace {
// Mutates each element; reports whether any changed.
template <typename T>
bool mutate_all(Mutator* m, const std::vector<T>& in, std::vector<T>* out,
                T (Mutator::*f)(const T&)) {
  bool changed = false;
  out->reserve(in.size());
  for (const T& x : in) {
    out->push_back((m->*f)(x));
    changed |= out->back() != x;
  }
  return changed;
}
}  // namespace

Expr Mutator::mutate_IntImm(const IntImm&, const Expr& self) { return self; }
Expr Mutator::mutate_FloatImm(const FloatImm&, const Expr& self) { return self; }
Expr Mutator::mutate_VarRef(const VarRef&, const Expr& self) { return self; }
Expr Mutator::mutate_Binary(const Binary& n, const Expr& self) {
  Expr a = mutate(n.a), b = mutate(n.b);
  if (a == n.a && b == n.b) return self;
  return binary(n.op, a, b);
}
Expr Mutator::mutate_Cast(const Cast& n, const Expr& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : cast(n.dtype, v);
}
Expr Mutator::mutate_Load(const Load& n, const Expr& self) {
  std::vector<Expr> idx;
  Expr (Mutator::*f)(const Expr&) = &Mutator::mutate;
  return mutate_all(this, n.indices, &idx, f) ? load(n.buffer, idx) : self;
}
Expr Mutator::mutate_Call(const Call& n, const Expr& self) {
  std::vector<Expr> args;
  Expr (Mutator::*f)(const Expr&) = &Mutator::mutate;
  return mutate_all(this, n.args, &args, f) ? call(n.dtype, n.op, args, n.buffers) : self;
}
Stmt Mutator::mutate_For(const For& n, const Stmt& self) {
  Expr mn = mutate(n.min), ext = mutate(n.extent);
  Stmt body = mutate(n.body);
  if (mn == n.min && ext == n.extent && body == n.body) return self;
  return for_loop(n.var, mn, ext, n.kind, body, n.thread);
}
Stmt Mutator::mutate_Store(const Store& n, const Stmt& self) {
  std::vector<Expr> idx;
  Expr (Mutator::*f)(const Expr&) = &Mutator::mutate;
  const bool changed = mutate_all(this, n.indices, &idx, f);
  Expr v = mutate(n.value);
  return changed || v != n.value ? store(n.buffer, idx, v) : self;
}
Stmt Mutator::mutate_Seq(const Seq& n, const Stmt& self) {
  std::vector<Stmt> stmts;
  Stmt (Mutator::*f)(const Stmt&) = &Mutator::mutate;
  return mutate_all(this, n.stmts, &stmts, f) ? seq(stmts) : self;
}
Stmt Mutator::mutate_Allocate(const Allocate& n, const Stmt& self) {
  Stmt body = mutate(n.body);
  return body == n.body ? self : allocate(n.buffer, body);
}
Stmt Mutator::mutate_IfThenElse(const IfThenElse& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt t = mutate(n.then_case), e = mutate(n.else_case);
  if (c == n.cond && t == n.then_case && e == n.else_case) return self;
  return if_then_else(c, t, e);
}
Stmt Mutator::mutate_Evaluate(const Evaluate& n, const Stmt& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : evaluate(v);
}
Stmt Mutator::mutate_AttrStmt(const AttrStmt& n, const Stmt& self) {
  Expr v = mutate(n.value);
  Stmt body = mutate(n.body);
  return v == n.value && body == n.body ? self : attr(n.key, v, body);
}

}  // namespace weft::compiler::ir
