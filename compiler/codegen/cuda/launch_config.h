// GPU analysis: the launch configuration of one kernel (grid and block dimensions from the
// loops bound to blockIdx/threadIdx, the static shared memory) and every check that makes a
// schedule legal on a GPU, each a UserError naming the loop or buffer:
//   - threads per block above the limit; a grid y/z dimension above 65535;
//   - shared memory above the limit; a local (register) array above the limit;
//   - a store to global memory under no threadIdx binding in a block of several threads (every
//     thread would run the loop); a shared tile filled under no threadIdx binding inside its
//     allocation (every thread would copy the whole tile); a kernel with no binding at all;
//   - a parallel or virtual-thread loop; a bound loop smaller than the launch (it is guarded)
//     around a barrier; a buffer of 2^31 elements or more.
#pragma once

#include <string>

#include "compiler/codegen/cuda/codegen_cuda.h"

namespace weft::compiler::codegen {

/// See the file comment; `kernel` names the kernel in messages.
LaunchConfig launch_config(const std::string& kernel, const ir::Stmt& body,
                           const GpuLimits& limits);

}  // namespace weft::compiler::codegen
