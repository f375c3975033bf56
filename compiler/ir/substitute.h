// Variables in expressions: substitution (every reference to a mapped variable replaced by its
// expression; lowering rebuilds root indices with it, schedules rename axes, and passes pin
// loop variables to constants) and whether an expression mentions a variable.
#pragma once

#include <map>

#include "compiler/ir/ir.h"
#include "compiler/ir/visitor.h"

namespace weft::compiler::ir {

/// Variable -> replacement.
using VarMap = std::map<const VarObj*, Expr>;

/// The mutator behind substitute(), for passes that rewrite more than variables (derive and
/// call its mutate_VarRef for the variables).
class Substituter : public Mutator {
 public:
  explicit Substituter(VarMap m) : map_(std::move(m)) {}

 protected:
  Expr mutate_VarRef(const VarRef& n, const Expr& self) override;

 private:
  VarMap map_;
};

/// `e` with the variables of `map` replaced.
Expr substitute(const Expr& e, const VarMap& map);
/// Every expression of `s` with the variables of `map` replaced.
Stmt substitute(const Stmt& s, const VarMap& map);

/// Whether `e` refers to `v`.
bool mentions(const Expr& e, const VarObj* v);

}  // namespace weft::compiler::ir
