// `weft compile --target cuda --emit ptx`: the PTX NVRTC makes of an operator's CUDA for an
// architecture (no GPU needed). Declared apart from run_op.h because it needs the toolkit.
#pragma once

#include <string>

#include "runtime/gpu/run_op.h"

namespace weft::rt::gpu {

/// PTX of the request's operator for `arch` (e.g. "sm_75").
std::string gpu_op_ptx(const GpuRunRequest& r, const std::string& arch);

}  // namespace weft::rt::gpu
