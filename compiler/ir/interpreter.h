// The reference interpreter of the loop IR: runs a statement over buffers of plain integers.
// Tests use it to check that every schedule and pass preserves what a program computes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

/// Buffer contents, row-major, one int64 per element (values wrap to the buffer's type).
using BufferData = std::map<const BufferObj*, std::vector<int64_t>>;

/// Runs intrinsic calls by name: given the call (for its buffer operands), its evaluated
/// arguments and the buffer contents, returns a value.
using Intrinsic =
    std::function<int64_t(const Call& call, const std::vector<int64_t>& args, BufferData& buffers)>;

/// Executes `s`. Buffers it reads or writes that are not allocated inside it must be in
/// `buffers` with their full size. Throws UserError for an out-of-bounds access (naming the
/// buffer, dimension and index) or an unknown intrinsic.
void interpret(const Stmt& s, BufferData& buffers,
               const std::map<std::string, Intrinsic>& intrinsics = {});

/// Wraps a value to a type's width (two's complement).
int64_t wrap(int64_t v, DType t);

}  // namespace weft::compiler::ir
