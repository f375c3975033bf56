// Variables in expressions; see substitute.h.
#include "compiler/ir/substitute.h"

namespace weft::compiler::ir {

Expr Substituter::mutate_VarRef(const VarRef& n, const Expr& self) {
  auto it = map_.find(n.var.get());
  return it == map_.end() ? self : it->second;
}

Expr substitute(const Expr& e, const VarMap& map) { return Substituter(map).mutate(e); }
Stmt substitute(const Stmt& s, const VarMap& map) { return Substituter(map).mutate(s); }

bool mentions(const Expr& e, const VarObj* v) {
  class Mentions : public Visitor {
   public:
    explicit Mentions(const VarObj* v) : var_(v) {}
    bool found = false;

   protected:
    void visit_VarRef(const VarRef& n) override { found |= n.var.get() == var_; }

   private:
    const VarObj* var_;
  } m(v);
  m.visit(e);
  return m.found;
}

}  // namespace weft::compiler::ir
