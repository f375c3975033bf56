// An operator for the CPU (LLVM) or GPU (CUDA) code generator: a tensor-expression definition
// with its schedule, lowered to one loop-IR function whose arguments are the inputs, then the
// outputs, then the workspaces (intermediate global buffers the runtime allocates once per
// compiled kernel). Every builder under compiler/ops/cpu and compiler/ops/gpu returns one;
// runtime/cpu (the LLVM JIT) and runtime/gpu (NVRTC and the driver) compile and run it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compiler/codegen/lowered_func.h"
#include "compiler/te/schedule.h"

namespace weft::compiler::ops {

/// A lowered CPU or GPU operator: `func.args` are the inputs, the outputs, the workspaces.
struct LoweredOp {
  codegen::LoweredFunc func;
  size_t num_inputs = 0, num_outputs = 0;
  double ops = 0;    // arithmetic operations, a multiply-add counting 2
  std::string path;  // GPU: how it runs ("simt", "tensor-core", "dp4a", "elementwise"); CPU: ""
};

/// Lowers `s` into the function `name` over `inputs`, `outputs` and every other global buffer.
LoweredOp lower_op(const std::string& name, te::Schedule& s, const std::vector<te::Tensor>& inputs,
                   const std::vector<te::Tensor>& outputs, double ops = 0,
                   const std::string& path = "");

}  // namespace weft::compiler::ops
