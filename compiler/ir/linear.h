// Affine (linear) forms of integer expressions: sum of coefficient x variable plus a constant.
// Bound inference reads regions off them and the simplifier rebuilds index expressions from
// them, so that `(o*4 + x) - o*4` prints as `x`.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

/// sum(coef[v] * v) + constant, variables kept in order of first appearance.
struct LinearForm {
  std::vector<Var> order;
  std::map<const VarObj*, int64_t> coef;
  int64_t constant = 0;
};

/// The affine form of `e` (sums, differences, products with constants, casts), or nothing.
std::optional<LinearForm> linear_form(const Expr& e);

/// The expression of a form: terms in order, zero coefficients dropped.
Expr from_linear(const LinearForm& f);

/// Rewrites every maximal affine subexpression into its canonical form.
Expr simplify(const Expr& e);
/// Simplifies every expression in a statement.
Stmt simplify(const Stmt& s);

}  // namespace weft::compiler::ir
