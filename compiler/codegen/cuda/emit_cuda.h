// Internal to compiler/codegen/cuda: printing one kernel's loop IR (after double_buffer and
// insert_barriers, with its launch configuration) as a CUDA C __global__ function.
#pragma once

#include <string>
#include <vector>

#include "compiler/codegen/cuda/codegen_cuda.h"

namespace weft::compiler::codegen {

/// What emitting a kernel found out about it.
struct EmitInfo {
  bool uses_wmma = false, uses_fp16 = false;
};

/// Appends `extern "C" __global__ void name(params) { body }` to `out`. UserError for IR the
/// GPU backend cannot print (an unknown intrinsic, a fragment access that is not a whole
/// 16x16 tile copy, a float floor modulo).
void emit_kernel(const std::string& name, const std::vector<ir::Buffer>& args,
                 const ir::Stmt& body, const LaunchConfig& launch, std::string& out,
                 EmitInfo& info);

/// The helpers every generated module starts with (floor division and modulo, dot2_i16).
std::string cuda_prelude(const EmitInfo& info);

}  // namespace weft::compiler::codegen
