// The LLVM backend's analyses before it builds anything (compiler/codegen/llvm/
// vector_legality.h): affine coefficients along a lane, the int64 flat offset, and why a
// vectorized loop falls back to a serial one.
#include "compiler/codegen/llvm/vector_legality.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"

namespace weft::compiler::codegen {
namespace {

using ir::DType;

TEST(VectorLegality, CoefficientsAlongALane) {
  const ir::Var v = ir::make_var("v"), o = ir::make_var("o");
  EXPECT_EQ(coef_of(ir::add(ir::mul(ir::ref(o), ir::imm(8)), ir::ref(v)), v.get()), 1);
  EXPECT_EQ(coef_of(ir::mul(ir::sub(ir::ref(v), ir::ref(o)), ir::imm(3)), v.get()), 3);
  EXPECT_EQ(coef_of(ir::ref(o), v.get()), 0);
  EXPECT_FALSE(coef_of(ir::floordiv(ir::ref(v), ir::imm(2)), v.get()));
}

TEST(VectorLegality, FlatOffsetsAreInt64) {
  const ir::Buffer b = ir::make_buffer("B", DType::kFloat32, {4, 8});
  const ir::Var i = ir::make_var("i");
  EXPECT_EQ(ir::to_string(flat_offset(b, {ir::ref(i), ir::imm(3, DType::kInt32)})),
            "((i*8) + int64(3))");
}

TEST(VectorLegality, WhyALoopIsNotVectorizable) {
  const ir::Buffer a = ir::make_buffer("A", DType::kFloat32, {64});
  const ir::Buffer s = ir::make_buffer("S", DType::kFloat32, {1});
  const ir::Var v = ir::make_var("v"), k = ir::make_var("k");
  auto vec = [&](ir::Stmt body) {
    return ir::for_loop(v, ir::imm(0), ir::imm(8), ir::ForKind::kVectorized, std::move(body));
  };
  const ir::Stmt copy = vec(ir::store(a, {ir::ref(v)}, ir::fimm(1.0)));
  EXPECT_EQ(why_not_vectorizable(static_cast<const ir::For&>(*copy)), "");
  const ir::Stmt sum = vec(ir::store(s, {ir::imm(0)}, ir::load(a, {ir::ref(v)})));
  EXPECT_EQ(why_not_vectorizable(static_cast<const ir::For&>(*sum)),
            "a lane-dependent value is stored to one address");
  const ir::Stmt shift =
      vec(ir::store(a, {ir::ref(v)}, ir::load(a, {ir::add(ir::ref(v), ir::imm(1))})));
  EXPECT_EQ(why_not_vectorizable(static_cast<const ir::For&>(*shift)),
            "buffer is stored and loaded at different indices");
  const ir::Stmt nested =
      vec(ir::for_loop(k, ir::imm(0), ir::imm(2), ir::ForKind::kSerial, ir::evaluate(ir::imm(0))));
  EXPECT_EQ(why_not_vectorizable(static_cast<const ir::For&>(*nested)), "it contains the loop 'k'");
  const ir::Stmt rcp = vec(
      ir::store(a, {ir::ref(v)}, ir::call(DType::kFloat32, ir::Intrinsic::kRcp, {ir::fimm(2.0)})));
  EXPECT_EQ(why_not_vectorizable(static_cast<const ir::For&>(*rcp)), "it calls 'weft.cuda.rcp'");
  EXPECT_TRUE(cpu_implements(ir::Intrinsic::kDot4U8S8));
  EXPECT_FALSE(cpu_implements(ir::Intrinsic::kDot4I8));
}

}  // namespace
}  // namespace weft::compiler::codegen
