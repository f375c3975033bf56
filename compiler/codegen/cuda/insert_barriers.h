// GPU pass: inserts __syncthreads() (ir::Intrinsic::kSyncThreads) where threads of a block hand
// shared memory to each other. Within a statement list, a barrier goes before a statement that
// reads a shared buffer written earlier in the list (read after write) or writes one read earlier
// (write after read), since the last barrier. A loop whose body writes and reads the same
// shared buffer ends each iteration with a barrier (its next iteration overwrites the tile).
// Buffers under a `double_buffer` attribute are left alone: double_buffer placed their
// barriers.
// Before: the kernel's loop IR. After: the same, with barriers; no barrier is inside a
// conditional that the pass created (guards of bound loops are checked by launch_config).
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// The barrier statement.
ir::Stmt sync_threads();

/// See the file comment.
ir::Stmt insert_barriers(const ir::Stmt& kernel);

}  // namespace weft::compiler::codegen
