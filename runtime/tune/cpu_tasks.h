// Tuning tasks for the LLVM CPU backend (`weft tune ... --target llvm`). The spaces, the host
// JIT measurer and the loop-nest features are built by the CPU tuning work (issue #14's CPU
// half); until that is in the build, cpu_tuning_available() is false and make_cpu_task says so.
#pragma once

#include "runtime/tune/task.h"

namespace weft::rt::tune {

/// True when this build can tune for the CPU backend.
bool cpu_tuning_available();
/// The task for `w` ("dense" with m, n, k [, dtype]; "conv2d" with the Conv2dShape fields
/// n, h, w, ic, oc, k, stride, pad) on the host CPU. UserError when unavailable or for a bad
/// workload.
Task make_cpu_task(const compiler::tune::Workload& w, const std::string& name);

}  // namespace weft::rt::tune
