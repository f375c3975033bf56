// Running CPU operators: a CpuKernel JIT-compiles a lowered operator of compiler/ops/cpu once
// (the generated code's parallel loops call weft_cpu_parallel_for) and runs it on caller-owned
// buffers, with the operator's workspaces allocated once and reused.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ops/lowered_op.h"
#include "runtime/cpu/thread_pool.h"

namespace weft::rt::cpu {

/// Host symbols every CPU kernel links against (the parallel-for entry).
compiler::codegen::HostSymbols host_symbols();

class CpuKernel {
 public:
  /// Compiles `op` for the host CPU.
  explicit CpuKernel(compiler::ops::LoweredOp op);
  ~CpuKernel();
  CpuKernel(const CpuKernel&) = delete;
  CpuKernel& operator=(const CpuKernel&) = delete;

  /// Runs on `buffers` (inputs then outputs, each as large as its buffer in op().func.args)
  /// with the parallel loops on `pool` (serial when null). UserError for a wrong count.
  void run(const std::vector<void*>& buffers, ThreadPool* pool = nullptr);
  const compiler::ops::LoweredOp& op() const { return op_; }
  /// The optimized LLVM IR that was compiled.
  const std::string& llvm_ir() const;

 private:
  compiler::ops::LoweredOp op_;
  std::unique_ptr<compiler::codegen::JitModule> jit_;
  compiler::codegen::Kernel fn_ = nullptr;
  std::vector<void*> workspaces_;
};

/// Bytes of a buffer.
size_t buffer_bytes(const compiler::ir::Buffer& b);

}  // namespace weft::rt::cpu
