// The registry's table; see intrinsics.h. One row per enumerator, in enumerator order (checked
// at compile time).
#include "compiler/ir/intrinsics.h"

#include <cstddef>
#include <iterator>

namespace weft::compiler::ir {

namespace {

using I = Intrinsic;
constexpr int kVar = IntrinsicInfo::kVariadic;

// op, name, args, buffers, effect, instruction, kernel
constexpr IntrinsicInfo kTable[] = {
    {I::kSelect, "weft.select", 3, 0, Effect::kPure, false, I::kSelect},
    {I::kDot2I16, "weft.dot2_i16", 2, 0, Effect::kPure, false, I::kDot2I16},
    {I::kDot4U8S8, "weft.dot4_u8s8", 2, 0, Effect::kPure, false, I::kDot4U8S8},
    {I::kDot4I8, "weft.dot4_i8", 2, 0, Effect::kPure, false, I::kDot4I8},
    {I::kRoundEven, "weft.round_even", 1, 0, Effect::kPure, false, I::kRoundEven},
    {I::kRcp, "weft.cuda.rcp", 1, 0, Effect::kPure, false, I::kRcp},
    {I::kExp, "weft.exp", 1, 0, Effect::kPure, false, I::kExp},
    {I::kTanh, "weft.tanh", 1, 0, Effect::kPure, false, I::kTanh},
    {I::kErf, "weft.erf", 1, 0, Effect::kPure, false, I::kErf},
    {I::kSqrt, "weft.sqrt", 1, 0, Effect::kPure, false, I::kSqrt},
    {I::kPow, "weft.pow", 2, 0, Effect::kPure, false, I::kPow},
    {I::kFDiv, "weft.fdiv", 2, 0, Effect::kPure, false, I::kFDiv},
    {I::kDmaCopy2d, "weft.dma_copy2d", 6, 2, Effect::kDma, true, I::kDmaCopy2d},
    {I::kDmaCopy2dPad, "weft.dma_copy2d_pad", 10, 2, Effect::kDma, true, I::kDmaCopy2dPad},
    {I::kGemm, "weft.gemm", 3, 3, Effect::kCompute, false, I::kGemmKernel},
    {I::kGemmReset, "weft.gemm_reset", 1, 1, Effect::kCompute, false, I::kGemmResetKernel},
    {I::kAlu, "weft.alu", 5, 2, Effect::kCompute, false, I::kAluKernel},
    {I::kGemmKernel, "weft.gemm_kernel", kVar, 3, Effect::kCompute, true, I::kGemmKernel},
    {I::kGemmResetKernel, "weft.gemm_reset_kernel", kVar, 1, Effect::kCompute, true,
     I::kGemmResetKernel},
    {I::kAluKernel, "weft.alu_kernel", kVar, 2, Effect::kCompute, true, I::kAluKernel},
    {I::kSyncThreads, "weft.cuda.syncthreads", 0, 0, Effect::kBarrier, false, I::kSyncThreads},
    {I::kWmmaMma, "weft.wmma.mma", 3, 3, Effect::kCompute, false, I::kWmmaMma},
    {I::kWmmaFill, "weft.wmma.fill", 1, 1, Effect::kCompute, false, I::kWmmaFill},
};

constexpr bool rows_in_order() {
  for (size_t i = 0; i < std::size(kTable); ++i) {
    if (static_cast<size_t>(kTable[i].op) != i) return false;
  }
  return std::size(kTable) == static_cast<size_t>(I::kWmmaFill) + 1;
}
static_assert(rows_in_order(), "one row per Intrinsic, in enumerator order");

}  // namespace

const IntrinsicInfo& intrinsic_info(Intrinsic op) { return kTable[static_cast<size_t>(op)]; }

}  // namespace weft::compiler::ir
