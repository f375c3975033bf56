// GPU pass: double buffering of shared tiles. A shared Allocate under the `double_buffer`
// attribute (te::Stage::double_buffer) that sits at the top of a serial loop whose body
// starts with the statements filling it,
//   for (ko, 0, n) { allocate S { fill(S, ko); rest(S) } }
// becomes a buffer of two halves filled one iteration ahead:
//   allocate S[2, ...] { fill(S[0], 0); sync; for (ko, 0, n) {
//     if (ko + 1 < n) fill(S[(ko+1)%2], ko+1); rest(S[ko%2]); sync } }
// so one barrier per iteration remains (not two) and the next tile's loads are issued before
// the current tile's arithmetic. Fills found later in the body (a tile filled just before its
// own fragments are read) move up to the leading fills when they do not depend on the
// statements they pass; otherwise the schedule is a UserError. No fill of the half being read
// is left in the loop (it would race with the readers: there is no barrier between them). The attribute stays on the new Allocate so that
// insert_barriers leaves the buffer alone.
// Before: lowered loop IR. After: no double_buffer Allocate inside a loop. UserError when the
// pattern does not hold (naming the buffer).
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// See the file comment.
ir::Stmt double_buffer(const ir::Stmt& kernel);

}  // namespace weft::compiler::codegen
