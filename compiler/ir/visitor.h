// Visitor and mutator over the loop IR. Dispatch is generated from the node lists in ir.h;
// the default handlers walk (visitor) or rebuild-if-changed (mutator) every child, so a pass
// overrides only the nodes it cares about.
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

/// Read-only traversal.
class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define WEFT_IR_VISIT_DECL(N) virtual void visit_##N(const N& n);
  WEFT_IR_EXPR_NODES(WEFT_IR_VISIT_DECL)
  WEFT_IR_STMT_NODES(WEFT_IR_VISIT_DECL)
#undef WEFT_IR_VISIT_DECL
};

/// Rewriting traversal: returns the same handle when nothing below changed.
class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
#define WEFT_IR_MUTATE_EXPR_DECL(N) virtual Expr mutate_##N(const N& n, const Expr& self);
#define WEFT_IR_MUTATE_STMT_DECL(N) virtual Stmt mutate_##N(const N& n, const Stmt& self);
  WEFT_IR_EXPR_NODES(WEFT_IR_MUTATE_EXPR_DECL)
  WEFT_IR_STMT_NODES(WEFT_IR_MUTATE_STMT_DECL)
#undef WEFT_IR_MUTATE_EXPR_DECL
#undef WEFT_IR_MUTATE_STMT_DECL
};

}  // namespace weft::compiler::ir
