// Pass plan_tokens: dependency tokens for an emitted accelerator program. It tracks, for every
// on-chip block, the last operation that wrote it and the last that read it; when an
// operation depends on an earlier one of a neighbouring module (read after write, write after
// read or write), it makes it wait for the latest such producer: a push right after the
// producer, a pop right before the consumer. Waiting for the latest producer implies every
// earlier one (modules run in order), and pops of one queue consume pushes in the order they
// were made. Tracking blocks rather than loop structure means virtual threads, which touch
// disjoint per-thread tiles, only wait for what they really share.
//
// Before: an accel::Program without tokens (emit_accel). After: the same operations with
// kDepPush / kDepPop operations inserted. A dependency between modules that share no token
// queue (load and store) is a UserError.
#pragma once

#include "compiler/accel/program.h"

namespace weft::compiler::passes {

/// The pass; see above.
accel::Program plan_tokens(accel::Program program);

}  // namespace weft::compiler::passes
