// CPU kernel compilation and execution; see executor.h.
#include "runtime/cpu/executor.h"

#include <cstdlib>

#include "hardware/isa/errors.h"

namespace weft::rt::cpu {

namespace ir = compiler::ir;

compiler::codegen::HostSymbols host_symbols() {
  return {{compiler::codegen::kParallelForSymbol, reinterpret_cast<void*>(&weft_cpu_parallel_for)}};
}

size_t buffer_bytes(const ir::Buffer& b) {
  return static_cast<size_t>(b->elements()) * static_cast<size_t>(ir::dtype_bits(b->dtype) / 8);
}

CpuKernel::CpuKernel(compiler::ops::LoweredOp op) : op_(std::move(op)) {
  jit_ = compiler::codegen::jit_compile({op_.func}, host_symbols());
  fn_ = jit_->kernel(op_.func.name);
  const size_t io = op_.num_inputs + op_.num_outputs;
  for (size_t i = io; i < op_.func.args.size(); ++i) {
    const size_t bytes = (buffer_bytes(op_.func.args[i]) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw UserError("out of memory for the workspace '" + op_.func.args[i]->name + "'");
    workspaces_.push_back(p);
  }
}

CpuKernel::~CpuKernel() {
  for (void* p : workspaces_) std::free(p);
}

const std::string& CpuKernel::llvm_ir() const { return jit_->optimized_ir(); }

void CpuKernel::run(const std::vector<void*>& buffers, ThreadPool* pool) {
  const size_t io = op_.num_inputs + op_.num_outputs;
  if (buffers.size() != io) {
    throw UserError("kernel '" + op_.func.name + "' takes " + std::to_string(io) +
                    " buffers, given " + std::to_string(buffers.size()));
  }
  std::vector<void*> args(buffers);
  args.insert(args.end(), workspaces_.begin(), workspaces_.end());
  ScopedPool scope(pool);
  fn_(args.data());
}

}  // namespace weft::rt::cpu
