// GPU operator execution; see executor.h.
#include "runtime/gpu/executor.h"

#include <chrono>

#include "hardware/isa/errors.h"
#include "runtime/gpu/nvrtc_compiler.h"

namespace weft::rt::gpu {

size_t dtype_bytes(compiler::ir::DType t) {
  return static_cast<size_t>(compiler::ir::dtype_bits(t) / 8);
}

GpuKernel::GpuKernel(const compiler::ops::LoweredOp& op) : op_(op) {
  Gpu& gpu = Gpu::get();
  const auto t0 = std::chrono::steady_clock::now();
  module_ = compiler::codegen::codegen_cuda(op.func);
  handle_ = gpu.load_module(nvrtc_compile(module_.source, gpu.arch(), Emit::kCubin));
  compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& k : module_.kernels) functions_.push_back(gpu.function(handle_, k.name));
  for (size_t i = op.num_inputs + op.num_outputs; i < op.func.args.size(); ++i) {
    const auto& b = op.func.args[i];
    workspaces_.emplace_back(static_cast<size_t>(b->elements()) * dtype_bytes(b->dtype));
  }
}

GpuKernel::~GpuKernel() {
  if (handle_) Gpu::get().unload(handle_);
}

void GpuKernel::run(const std::vector<uint64_t>& buffers) {
  const size_t n = op_.num_inputs + op_.num_outputs;
  if (buffers.size() != n) {
    throw UserError("GPU kernel " + op_.func.name + ": " + std::to_string(buffers.size()) +
                    " buffers given, it takes " + std::to_string(n) + " (inputs, then outputs)");
  }
  std::vector<uint64_t> ptrs = buffers;
  for (const DeviceBuffer& w : workspaces_) ptrs.push_back(w.ptr());
  std::vector<void*> params;
  for (uint64_t& p : ptrs) params.push_back(&p);
  Gpu& gpu = Gpu::get();
  for (size_t i = 0; i < functions_.size(); ++i) {
    const auto& l = module_.kernels[i].launch;
    gpu.launch(functions_[i], l.grid, l.block, 0, params.data());
  }
}

}  // namespace weft::rt::gpu
