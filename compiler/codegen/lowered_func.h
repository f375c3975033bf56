// What every code generator (CPU through LLVM, GPU through CUDA C) takes: a named function of
// loop IR over the global buffers it is called with. Kept apart from either backend so that
// neither needs the other's headers.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"

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

/// Lowers a schedule into a function whose arguments are `inputs`, then `outputs`, then every
/// other global buffer the body accesses.
LoweredFunc lower_func(const std::string& name, te::Schedule& s,
                       const std::vector<te::Tensor>& inputs, const std::vector<te::Tensor>& outputs);

/// The global-scope buffers `s` accesses, in order of first appearance (a convenience for
/// building LoweredFunc::args).
std::vector<ir::Buffer> global_buffers(const ir::Stmt& s);

}  // namespace weft::compiler::codegen
