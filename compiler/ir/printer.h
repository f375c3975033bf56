// Human-readable text of the loop IR, used by `weft compile --emit ir`, by the docs and by the
// before/after pass tests (which compare printed IR with expected text).
#pragma once

#include <string>

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

/// One line for an expression, e.g. "(i.outer*8 + i.inner)".
std::string to_string(const Expr& e);
/// Indented text of a statement, two spaces per level, ending with a newline.
std::string to_string(const Stmt& s);

}  // namespace weft::compiler::ir
