// Internal to compiler/codegen/llvm: the LLVM IR of the dot-product intrinsics (dot4_u8s8,
// dot2_i16), as x86 vpdpbusd (AVX512-VNNI, AVX-VNNI) and pmaddwd (AVX2, AVX512-BW) pieces
// where the target has them, else as widening multiplies and adds that any target runs. The
// declarations need no LLVM headers; x86_dot.cc includes them.
#pragma once

#include <string>

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace weft::compiler::codegen {

/// What the lowering asks of the target: its triple and its feature string ("+avx2,...").
struct DotTarget {
  const std::string& triple;
  const std::string& features;
};

/// dot4_u8s8(x, y) + acc for i32 values or `lanes`-wide i32 vectors (`x`, `y` and a non-null
/// `acc` of the same shape; a null `acc` adds zero). With `acc` given, null where the target
/// has no VNNI (the caller adds acc to the generic dot4_u8s8(x, y, nullptr)).
llvm::Value* emit_dot4_u8s8(llvm::IRBuilderBase& b, const DotTarget& t, llvm::Value* x,
                            llvm::Value* y, llvm::Value* acc, unsigned lanes);

/// dot2_i16(x, y) for i32 values or `lanes`-wide i32 vectors of the same shape.
llvm::Value* emit_dot2_i16(llvm::IRBuilderBase& b, const DotTarget& t, llvm::Value* x,
                           llvm::Value* y, unsigned lanes);

}  // namespace weft::compiler::codegen
