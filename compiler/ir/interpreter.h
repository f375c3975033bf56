// The reference interpreter of the loop IR: runs a statement over buffers of plain integers.
// Tests use it to check that every schedule and pass preserves what a program computes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

/// Buffer contents, row-major, one int64 per element (values wrap to the buffer's type).
using BufferData = std::map<const BufferObj*, std::vector<int64_t>>;

/// Runs calls of one intrinsic: given the call (for its buffer operands), its evaluated
/// arguments and the buffer contents, returns a value.
using IntrinsicImpl =
    std::function<int64_t(const Call& call, const std::vector<int64_t>& args, BufferData& buffers)>;
/// Implementations of intrinsics, by intrinsic.
using IntrinsicImpls = std::map<Intrinsic, IntrinsicImpl>;

/// Executes `s`. select, dot2_i16 and dot4_u8s8 are built in (unless `intrinsics` has them);
/// any other intrinsic must be in `intrinsics`. Buffers it reads or writes that are not
/// allocated inside it must be in `buffers` with their full size. Throws UserError for an
/// out-of-bounds access (naming the buffer, dimension and index) or an intrinsic it cannot run.
void interpret(const Stmt& s, BufferData& buffers, const IntrinsicImpls& intrinsics = {});

/// Wraps a value to a type's width (two's complement).
int64_t wrap(int64_t v, DType t);

}  // namespace weft::compiler::ir
