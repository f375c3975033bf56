// Pass allocate_onchip: bases in the on-chip buffers for every accelerator-scope allocation,
// added to the calls' block indices, nested allocations stacked, capacity errors named.
#include "compiler/passes/allocate_onchip.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/passes/detect_dma.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/packed_dense.h"

namespace weft::compiler::te {
namespace {

using ::testing::HasSubstr;

TEST(AllocateOnchip, AnnotatesBasesAndChecksCapacity) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  PackedDense d(gemm_intrinsic(l), 4, 4, 4, 2, 2, 2, /*dma_pragmas=*/true);
  const std::string text =
      ir::to_string(passes::allocate_onchip(passes::detect_dma(lower(*d.s)), l));
  EXPECT_THAT(text, HasSubstr("// attr sram_base(C.acc) = 0"));
  EXPECT_THAT(text, HasSubstr("// attr sram_base(A.inp) = 0"));
  EXPECT_THAT(text, HasSubstr("// attr sram_base(W.wgt) = 0"));

  // tiny's INP buffer holds 256 blocks: a 16 x 32 block input tile does not fit.
  const isa::Layout& tiny = isa::layout_for("tiny");
  PackedDense big(gemm_intrinsic(tiny), 16, 2, 32, 16, 1, 32);
  EXPECT_THAT([&] { passes::allocate_onchip(lower(*big.s), tiny); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("'A.inp' needs 512 INP blocks at 0, beyond the INP buffer's 256")));
}

TEST(AllocateOnchip, NestedAllocationsStackAndShiftCallIndices) {
  const isa::Layout& l = isa::layout_for("tiny");
  const ir::Buffer outer = ir::make_buffer("X", ir::DType::kInt8, {4, 1, 4}, ir::Scope::kInp);
  const ir::Buffer inner = ir::make_buffer("Y", ir::DType::kInt8, {2, 1, 4}, ir::Scope::kInp);
  const ir::Buffer g = ir::make_buffer("G", ir::DType::kInt8, {8, 1, 4});
  const ir::Stmt s = ir::allocate(
      outer, ir::allocate(inner, ir::evaluate(ir::call(ir::DType::kInt32, ir::Intrinsic::kDmaCopy2d,
                                                       {ir::imm(1), ir::imm(0), ir::imm(1),
                                                        ir::imm(2), ir::imm(2), ir::imm(2)},
                                                       {inner, g}))));
  const std::string text = ir::to_string(passes::allocate_onchip(s, l));
  EXPECT_THAT(text, HasSubstr("// attr sram_base(Y) = 4"));
  EXPECT_THAT(text, HasSubstr("weft.dma_copy2d(Y, G, 5, 0, 1, 2, 2, 2)"));
  const ir::Buffer odd = ir::make_buffer("Z", ir::DType::kInt8, {2, 3}, ir::Scope::kWgt);
  EXPECT_THAT([&] { passes::allocate_onchip(ir::allocate(odd, ir::evaluate(ir::imm(0))), l); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("must end in the WGT block 4x4")));
}

}  // namespace
}  // namespace weft::compiler::te
