// Internal to compiler/codegen/llvm: the LLVM IR of the float32 math intrinsics (weft.exp,
// weft.tanh, weft.erf, weft.sqrt, weft.pow, weft.fdiv; compiler/ir/intrinsics.h). Division and
// square root are LLVM instructions (exact, vectorized); exp and pow are LLVM's intrinsics,
// which the x86 backend lowers to the C library's expf / powf; tanh and erf, which LLVM has no
// intrinsic for, are calls of the C library's tanhf / erff (the JIT resolves them among the
// process's symbols), lane by lane on vectors. So a host loop calling the same C functions in
// float computes the same bits. The declarations need no LLVM headers.
#pragma once

#include "compiler/ir/intrinsics.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace weft::compiler::codegen {

/// Whether `op` is one of the float32 math intrinsics.
bool is_float_math(ir::Intrinsic op);

/// `op` of float values or float vectors of one shape (`y` null for a one-operand function).
llvm::Value* emit_float_math(llvm::IRBuilderBase& b, ir::Intrinsic op, llvm::Value* x,
                             llvm::Value* y);

}  // namespace weft::compiler::codegen
