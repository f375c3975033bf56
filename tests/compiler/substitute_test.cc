// Variable substitution (compiler/ir/substitute.h) and the integer helpers (arith.h): the whole
// printed result after replacing variables in expressions and statements.
#include "compiler/ir/substitute.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/arith.h"
#include "compiler/ir/printer.h"

namespace weft::compiler::ir {
namespace {

TEST(Substitute, ReplacesEveryReferenceInAnExpression) {
  const Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  const Expr e = add(mul(ref(i), imm(4)), floordiv(ref(j), ref(i)));
  EXPECT_EQ(to_string(substitute(e, {{i.get(), add(ref(k), imm(1))}})),
            "(((k + 1)*4) + (j/(k + 1)))");
  // Constants fold as the builders rebuild the tree; unmapped variables stay.
  EXPECT_EQ(to_string(substitute(e, {{i.get(), imm(2)}})), "(8 + (j/2))");
  EXPECT_EQ(substitute(e, {{k.get(), imm(0)}}), e);  // nothing mentioned: the same tree
  EXPECT_TRUE(mentions(e, j.get()));
  EXPECT_FALSE(mentions(e, k.get()));
}

TEST(Substitute, ReachesEveryExpressionOfAStatement) {
  const Var i = make_var("i"), j = make_var("j"), n = make_var("n");
  const Buffer a = make_buffer("A", DType::kInt32, {4, 8});
  const Buffer acc = make_buffer("C.acc", DType::kInt32, {4, 1, 4}, Scope::kAcc);
  const Stmt s =
      for_loop(j, imm(0), ref(n), ForKind::kSerial,
               seq({store(a, {ref(i), ref(j)}, load(a, {ref(i), ref(j)})),
                    evaluate(call(DType::kInt32, Intrinsic::kGemmReset, {ref(i)}, {acc}))}),
               ThreadAxis::kThreadX);
  EXPECT_EQ(to_string(substitute(s, {{i.get(), imm(3)}, {n.get(), imm(8)}})),
            "// attr bind.threadIdx.x = 8\n"
            "for (j, 0, 8) {\n"
            "  A[3, j] = A[3, j]\n"
            "  weft.gemm_reset(C.acc, 3)\n"
            "}\n");
}

TEST(Arith, RoundsAsDocumented) {
  static_assert(ceil_div(7, 2) == 4 && ceil_div(8, 2) == 4 && ceil_div(0, 3) == 0);
  static_assert(round_up(7, 4) == 8 && round_up(8, 4) == 8);
  static_assert(floor_div(-7, 2) == -4 && floor_div(7, -2) == -4 && floor_div(6, 2) == 3);
  static_assert(floor_mod(-7, 2) == 1 && floor_mod(7, -2) == -1 && floor_mod(6, 4) == 2);
  SUCCEED();
}

}  // namespace
}  // namespace weft::compiler::ir
