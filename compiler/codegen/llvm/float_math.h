// Internal to compiler/codegen/llvm: the LLVM IR of the float32 math intrinsics (weft.exp,
// weft.tanh, weft.erf, weft.sqrt, weft.pow, weft.fdiv; compiler/ir/intrinsics.h). Division and
// square root are LLVM instructions (exact, vectorized); exp, tanh and erf are the sequences of
// compiler/ir/float_functions.h, vectorized, which host loops compute bit for bit; pow is LLVM's
// intrinsic, which the x86 backend lowers to the C library's powf, as a host loop calls it.
// The declarations need no LLVM headers.
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
