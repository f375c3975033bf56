// Runs a GPU operator (a lowered operator of compiler/ops/gpu): generates its CUDA
// (compiler/codegen/cuda), compiles it with NVRTC to a cubin for the device's architecture
// (cached), loads the module, allocates the workspaces once, and launches its kernels in order on
// caller device buffers. Needs a GPU (Gpu::get()).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/ops/lowered_op.h"
#include "runtime/gpu/cuda_driver.h"

namespace weft::rt::gpu {

/// A compiled GPU operator.
class GpuKernel {
 public:
  /// Compiles and loads `op`; UserError without a GPU or when it does not compile.
  explicit GpuKernel(const compiler::ops::LoweredOp& op);
  /// Unloads the module (the workspaces free themselves).
  ~GpuKernel();
  GpuKernel(const GpuKernel&) = delete;
  GpuKernel& operator=(const GpuKernel&) = delete;
  /// Launches every kernel on `buffers` (device pointers of the inputs, then the outputs);
  /// asynchronous (Gpu::get().synchronize() waits).
  void run(const std::vector<uint64_t>& buffers);
  const compiler::codegen::CudaModule& module() const { return module_; }
  double compile_seconds() const { return compile_seconds_; }

 private:
  compiler::ops::LoweredOp op_;
  compiler::codegen::CudaModule module_;
  void* handle_ = nullptr;
  std::vector<void*> functions_;
  std::vector<DeviceBuffer> workspaces_;
  double compile_seconds_ = 0;
};

/// The element type's size in bytes.
size_t dtype_bytes(compiler::ir::DType t);

}  // namespace weft::rt::gpu
