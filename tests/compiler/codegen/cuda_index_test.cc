// The CUDA emitter's index analyses (compiler/codegen/cuda/cuda_index.h): flat offsets, an
// index's form along a loop's lanes (through floor division and modulo of aligned bases), and
// what an index is known to be a multiple of.
#include "compiler/codegen/cuda/cuda_index.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"

namespace weft::compiler::codegen {
namespace {

TEST(CudaIndex, FlattenIsRowMajorAndSimplified) {
  const ir::Buffer b = ir::make_buffer("B", ir::DType::kFloat32, {4, 8, 16});
  const ir::Var i = ir::make_var("i"), j = ir::make_var("j"), k = ir::make_var("k");
  const std::vector<ir::Expr> idx = {ir::ref(i), ir::ref(j), ir::ref(k)};
  EXPECT_EQ(ir::to_string(flatten(b, idx, 3)), "(((i*128) + (j*16)) + k)");
  EXPECT_EQ(ir::to_string(flatten(b, idx, 2)), "((i*8) + j)");
  EXPECT_EQ(ir::to_string(flatten(b, idx, 0)), "0");
}

TEST(CudaIndex, LaneFormsAlongALoop) {
  const ir::Var v = ir::make_var("v"), o = ir::make_var("o");
  // o*8 + v: base o*8, one element per lane.
  auto f = lane_form(ir::add(ir::mul(ir::ref(o), ir::imm(8)), ir::ref(v)), v, 4);
  ASSERT_TRUE(f);
  EXPECT_EQ(ir::to_string(f->first), "(o*8)");
  EXPECT_EQ(f->second, 1);
  // (o*8 + v) / 8 stays in one quotient over 4 lanes from an 8-aligned base; % keeps the lane.
  const ir::Expr e = ir::add(ir::mul(ir::ref(o), ir::imm(8)), ir::ref(v));
  f = lane_form(ir::floordiv(e, ir::imm(8)), v, 4);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->second, 0);
  f = lane_form(ir::floormod(e, ir::imm(8)), v, 4);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->second, 1);
  // v*v is not affine in the lane.
  EXPECT_FALSE(lane_form(ir::mul(ir::ref(v), ir::ref(v)), v, 4));
}

TEST(CudaIndex, KnownMultiples) {
  const ir::Var o = ir::make_var("o"), x = ir::make_var("x");
  EXPECT_EQ(known_multiple(ir::mul(ir::ref(o), ir::imm(12))), 12);
  EXPECT_EQ(known_multiple(ir::add(ir::mul(ir::ref(o), ir::imm(12)), ir::imm(8))), 4);
  EXPECT_EQ(known_multiple(ir::ref(x)), 1);
  EXPECT_TRUE(multiple_of(ir::add(ir::mul(ir::ref(o), ir::imm(32)), ir::imm(64)), 16));
  EXPECT_FALSE(multiple_of(ir::add(ir::mul(ir::ref(o), ir::imm(32)), ir::ref(x)), 16));
}

}  // namespace
}  // namespace weft::compiler::codegen
