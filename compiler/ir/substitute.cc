// Variable substitution; see substitute.h.
#include "compiler/ir/substitute.h"

namespace weft::compiler::ir {

Expr Substituter::mutate_VarRef(const VarRef& n, const Expr& self) {
  auto it = map_.find(n.var.get());
  return it == map_.end() ? self : it->second;
}

Expr substitute(const Expr& e, const VarMap& map) { return Substituter(map).mutate(e); }
Stmt substitute(const Stmt& s, const VarMap& map) { return Substituter(map).mutate(s); }

}  // namespace weft::compiler::ir
