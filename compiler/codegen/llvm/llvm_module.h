// Internal to compiler/codegen/llvm: the step from loop IR to an (unoptimized) LLVM module,
// shared by codegen_llvm.cc (which implements it with llvm_gen.h) and jit.cc (which optimizes
// and compiles it). Includes LLVM headers: include it from no file outside codegen/llvm.
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/llvm/codegen_llvm.h"

namespace weft::compiler::codegen {

/// The host target every function is generated for.
struct TargetInfo {
  std::string triple, cpu, features;
  llvm::DataLayout layout;
};

/// Builds the module of `funcs` (each an externally visible `void name(ptr args)`).
std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx,
                                           const std::vector<LoweredFunc>& funcs,
                                           const TargetInfo& target);

}  // namespace weft::compiler::codegen
