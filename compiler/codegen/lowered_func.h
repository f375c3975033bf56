// What every code generator (CPU through LLVM, GPU through CUDA C) takes: a named function of
// loop IR over the global buffers it is called with. Kept apart from either backend so that
// neither needs the other's headers.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// One function to generate: `args` are the global buffers it accesses, in call order.
struct LoweredFunc {
  std::string name;
  std::vector<ir::Buffer> args;
  ir::Stmt body;
};

/// The variables and buffers a statement refers to, each in order of first appearance.
struct StmtUses {
  std::vector<const ir::VarObj*> vars;
  std::vector<ir::Buffer> buffers;
};
StmtUses uses_of(const ir::Stmt& s);

/// The global-scope buffers `s` accesses, in order of first appearance (a convenience for
/// building LoweredFunc::args).
std::vector<ir::Buffer> global_buffers(const ir::Stmt& s);

}  // namespace weft::compiler::codegen
