// Tensor-core fragments (compiler/codegen/cuda/wmma.h): fragment types, and which 16x16 copy
// nests are one whole-tile copy (load_matrix_sync / store_matrix_sync) and which are errors.
#include "compiler/codegen/cuda/wmma.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {
namespace {

using ir::DType;
using ::testing::HasSubstr;

// for (r, 0, rows) for (c, 0, 16) F[t, r, c] = S[row0 + r, col0 + c].
ir::Stmt tile_copy(const ir::Buffer& f, const ir::Buffer& s, const ir::Var& t, int64_t row0,
                   int64_t col0, const ir::Var& r, const ir::Var& c, int64_t rows = 16) {
  return ir::for_loop(r, ir::imm(0), ir::imm(rows), ir::ForKind::kSerial,
                      ir::for_loop(c, ir::imm(0), ir::imm(16), ir::ForKind::kSerial,
                                   ir::store(f, {ir::ref(t), ir::ref(r), ir::ref(c)},
                                             ir::load(s, {ir::add(ir::imm(row0), ir::ref(r)),
                                                          ir::add(ir::imm(col0), ir::ref(c))}))));
}

TEST(Wmma, FragmentTypesPerScope) {
  EXPECT_EQ(fragment_type(ir::make_buffer("A", DType::kFloat16, {16, 16}, ir::Scope::kInp)),
            "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, "
            "nvcuda::wmma::row_major>");
  EXPECT_EQ(fragment_type(ir::make_buffer("C", DType::kInt32, {16, 16}, ir::Scope::kAcc)),
            "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, int>");
  EXPECT_TRUE(is_fragment(ir::Scope::kWgt));
  EXPECT_FALSE(is_fragment(ir::Scope::kShared));
  EXPECT_THAT(
      [] {
        check_fragment_buffer(ir::make_buffer("A", DType::kFloat32, {16, 16}, ir::Scope::kInp));
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("input fragments hold float16 or int8, not float32")));
}

TEST(Wmma, AWholeTileCopyIsOneFragmentCopy) {
  const ir::Buffer f = ir::make_buffer("F", DType::kFloat16, {2, 16, 16}, ir::Scope::kInp);
  const ir::Buffer s = ir::make_buffer("S", DType::kFloat16, {64, 16}, ir::Scope::kShared);
  const ir::Var t = ir::make_var("t"), r = ir::make_var("r"), c = ir::make_var("c");
  const ir::Stmt copy = tile_copy(f, s, t, 32, 0, r, c);
  const auto fc = fragment_copy(static_cast<const ir::For&>(*copy));
  ASSERT_TRUE(fc);
  EXPECT_TRUE(fc->into);
  EXPECT_EQ(fc->fragment, f);
  EXPECT_EQ(fc->memory, s);
  EXPECT_EQ(ir::to_string(fc->tile), "t");
  EXPECT_EQ(ir::to_string(fc->base), "512");
  EXPECT_EQ(fc->ldm, 16);
  // A loop that touches no fragment is none.
  const ir::Buffer g = ir::make_buffer("G", DType::kFloat16, {2, 16, 16}, ir::Scope::kShared);
  EXPECT_FALSE(fragment_copy(static_cast<const ir::For&>(*tile_copy(g, s, t, 0, 0, r, c))));
}

TEST(Wmma, PartOfATileIsAnError) {
  const ir::Buffer f = ir::make_buffer("F", DType::kFloat16, {2, 16, 16}, ir::Scope::kInp);
  const ir::Buffer s = ir::make_buffer("S", DType::kFloat16, {64, 16}, ir::Scope::kShared);
  const ir::Var t = ir::make_var("t"), r = ir::make_var("r"), c = ir::make_var("c");
  const ir::Stmt half = tile_copy(f, s, t, 0, 0, r, c, 8);
  EXPECT_THAT([&] { fragment_copy(static_cast<const ir::For&>(*half)); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("loop 'r': the copy into tensor-core fragment 'F' must be one whole "
                            "16x16 tile per iteration: the two innermost loops must have extent "
                            "16")));
  // A tile 4 halves (8 bytes) into rows of 32: not 32-byte aligned.
  const ir::Buffer wide = ir::make_buffer("W", DType::kFloat16, {64, 32}, ir::Scope::kShared);
  const ir::Stmt misaligned = tile_copy(f, wide, t, 0, 4, r, c);
  EXPECT_THAT([&] { fragment_copy(static_cast<const ir::For&>(*misaligned)); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("must be 32-byte aligned")));
}

}  // namespace
}  // namespace weft::compiler::codegen
