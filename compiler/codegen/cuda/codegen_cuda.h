// The GPU backend's code generator: loop IR to CUDA C text (compiled later by NVRTC in
// runtime/gpu; this target links nothing but the compiler). Each top-level statement of a
// lowered function (one root stage of the schedule) becomes one __global__ kernel; every
// kernel takes all of the function's global buffers, in LoweredFunc::args order.
//
// The pipeline per kernel is a straight list (codegen_cuda.cc):
//   double_buffer    a double-buffered shared tile gets two halves, filled one step ahead
//   insert_barriers  __syncthreads() between writes and reads of shared memory
//   launch_config    grid and block from the bound loops, and every GPU legality check
//   emit             CUDA C
//
// What the generated code does with the schedule:
//   bind             a loop bound to blockIdx/threadIdx is no loop: its variable is the index
//                    (guarded when its extent is smaller than the launch's along that axis).
//   shared scope     a __shared__ array declared once at the top of the kernel.
//   local scope      a per-thread array (registers, when indexed by unrolled loops only).
//   inp/wgt/acc      tensor-core fragments (nvcuda::wmma matrix_a / matrix_b / accumulator,
//                    16x16x16); a 16x16 copy nest into or out of them is one
//                    load_matrix_sync / store_matrix_sync, the tensorized GEMM is mma_sync.
//   unrolled         `#pragma unroll` on a constant-extent loop.
//   vectorized       a copy whose both sides step by one element and start on a multiple of
//                    the lane count is one 4-, 8- or 16-byte access; anything else an
//                    unrolled scalar loop.
//   parallel, vthread  a user error: bind the loop instead.
// Index arithmetic (the IR's int64) is 32-bit `int` on the GPU: every buffer must have fewer
// than 2^31 elements (checked).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/lowered_func.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

// Intrinsics of the GPU (compiler/ir/intrinsics.h): kSyncThreads (inserted by
// insert_barriers), kWmmaMma and kWmmaFill (te::GemmIntrinsic{16, 16, 16, kWmmaMma,
// kWmmaFill} tensorizes to them), kRcp (average pooling divides by the taps inside the input).

using ir::kWmmaTile;  // the WMMA fragment edge, a property of the intrinsic

/// Per-block limits of the oldest target (Turing, sm_75), checked at code generation.
struct GpuLimits {
  int64_t max_threads = 1024;            // threads per block
  int64_t max_shared_bytes = 48 * 1024;  // static __shared__ per block
  int64_t max_local_elements = 256;      // elements of one per-thread (register) array
};

/// How a kernel is launched.
struct LaunchConfig {
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t shared_bytes = 0;  // static shared memory it declares
  int64_t threads() const { return block[0] * block[1] * block[2]; }
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
};

/// One generated kernel.
struct CudaKernel {
  std::string name;
  LaunchConfig launch;
};

/// The CUDA C of a lowered function.
struct CudaModule {
  std::string source;
  std::vector<CudaKernel> kernels;  // launched in this order
  std::vector<ir::Buffer> args;     // every kernel's parameters, in order
  bool uses_wmma = false;           // includes <mma.h> (NVRTC needs the toolkit's headers)
  bool uses_fp16 = false;           // includes <cuda_fp16.h>
};

/// Generates the kernels of `f`. UserError for a schedule the GPU cannot run, naming the loop
/// or buffer: too many threads per block, too much shared memory, a loop that would run in
/// every thread (a store under no threadIdx binding, a shared tile filled by unbound loops),
/// a parallel or virtual-thread loop, a barrier under a guard, an unknown intrinsic.
CudaModule codegen_cuda(const LoweredFunc& f, const GpuLimits& limits = {});

/// The C type of a dtype in generated code ("float", "half", "signed char", "int").
const char* cuda_type(ir::DType t);

}  // namespace weft::compiler::codegen
