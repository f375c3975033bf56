// Before/after tests of the range-aware index simplification run before LLVM code generation.
#include "compiler/codegen/llvm/simplify_index.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"

namespace weft::compiler::codegen {
namespace {

using namespace ir;

TEST(SimplifyIndex, BlockedDivModBecomeTheSplitLoops) {
  Var jo = make_var("jo"), ji = make_var("ji");
  Buffer p = make_buffer("P", DType::kFloat32, {4, 16});
  Buffer c = make_buffer("C", DType::kFloat32, {64});
  Expr j = add(mul(ir::ref(jo), imm(16)), ir::ref(ji));
  Stmt s = for_loop(jo, imm(0), imm(4), ForKind::kSerial,
                    for_loop(ji, imm(0), imm(16), ForKind::kSerial,
                             store(c, {j}, load(p, {floordiv(j, imm(16)), floormod(j, imm(16))}))));
  EXPECT_EQ(to_string(simplify_index(s)),
            "for (jo, 0, 4) {\n"
            "  for (ji, 0, 16) {\n"
            "    C[((jo*16) + ji)] = P[jo, ji]\n"
            "  }\n"
            "}\n");
}

TEST(SimplifyIndex, KeepsWhatTheRangesDoNotDecide) {
  Var i = make_var("i");
  Buffer a = make_buffer("A", DType::kInt32, {20});
  Buffer c = make_buffer("C", DType::kInt32, {20});
  // i ranges over [0, 20): i/16 is not constant, min(i, 9) is undecided, min(i, 30) is i.
  Stmt s = for_loop(i, imm(0), imm(20), ForKind::kSerial,
                    store(c, {ir::ref(i)},
                          add(load(a, {min(ir::ref(i), imm(30))}),
                              add(floordiv(ir::ref(i), imm(16)), min(ir::ref(i), imm(9))))));
  EXPECT_EQ(to_string(simplify_index(s)),
            "for (i, 0, 20) {\n"
            "  C[i] = (A[i] + ((i/16) + min(i, 9)))\n"
            "}\n");
}

}  // namespace
}  // namespace weft::compiler::codegen
