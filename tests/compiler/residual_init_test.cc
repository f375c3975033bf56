// Pass residual_init (compiler/passes/residual_init.h): the residual load moves to the reset,
// a left shift takes the reset's place and the ADD goes, only for the exact pattern; and its
// legality check, that r * 2^shift + sum + bias cannot wrap at 32 bits.
#include "compiler/passes/residual_init.h"

#include <gtest/gtest.h>

#include "compiler/accel/printer.h"
#include "tests/compiler/epilogue_program.h"

namespace weft::compiler::passes {
namespace {

using accel::Op;

TEST(ResidualInit, TheLoadMovesToTheResetAndTheAddGoes) {
  const auto bias = ir::make_buffer("B", ir::DType::kInt32, {2, 1, 16});
  const auto res = ir::make_buffer("R", ir::DType::kInt8, {2, 1, 16});
  int n = 0;
  const accel::Program p = residual_init(epilogue(bias, res, false), res, &n);
  EXPECT_EQ(n, 1);
  // load R into rows 0..1, SHR -4 (a left shift), GEMM, bias load, bias ADD, SHR 4.
  ASSERT_EQ(p.ops.size(), 6u);
  EXPECT_EQ(p.ops[0].kind, Op::Kind::kLoad);
  EXPECT_EQ(p.ops[0].tensor, res);
  EXPECT_EQ(p.ops[0].sram_base, 0);
  EXPECT_EQ(p.ops[1].alu_op, isa::AluOp::kShr);
  EXPECT_EQ(p.ops[1].imm, -4);
  EXPECT_EQ(p.ops[5].imm, 4);
  // A MIN between the shift and the ADD would make it another function: left alone.
  accel::Program q = epilogue(bias, res, false);
  Op min = q.ops[4];
  min.alu_op = isa::AluOp::kMin;
  min.imm = 100;
  q.ops.insert(q.ops.begin() + 5, min);
  EXPECT_EQ(residual_init(q, res, &n).ops.size(), q.ops.size());
  EXPECT_EQ(n, 0);
}

// The legality check: r * 2^shift + sum + bias must stay below 2^31 for every sum of
// `products` int8 x int8 products (each at most 128 * 128 in magnitude).
TEST(ResidualInit, LegalOnlyWhereNothingCanWrap) {
  // One product, shift 0: 16384 + 128 + bias < 2^31.
  EXPECT_TRUE(residual_init_cannot_wrap(1, 2147467135, 0));
  EXPECT_FALSE(residual_init_cannot_wrap(1, 2147467136, 0));
  // ResNet-18's largest reduction (3x3 over 512 channels) with a large shift and bias.
  EXPECT_TRUE(residual_init_cannot_wrap(512 * 9, 1 << 20, 20));
  EXPECT_FALSE(residual_init_cannot_wrap(512 * 9, 1 << 20, 24));  // 128 << 24 = 2^31
}

}  // namespace
}  // namespace weft::compiler::passes
