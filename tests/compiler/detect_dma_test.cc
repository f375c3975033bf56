// Pass detect_dma: the packed dense schedule's tile copies become 2D block copies (checked as
// text before/after and through the interpreter), and copies that break the pattern are
// errors naming the buffer and the loop.
#include "compiler/passes/detect_dma.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/packed_dense.h"

namespace weft::compiler::te {
namespace {

using ::testing::HasSubstr;

TEST(DetectDma, TileCopiesBecome2DBlockCopies) {
  PackedDense d(GemmIntrinsic{8, 8, 8}, 4, 4, 4, 2, 2, 2, /*dma_pragmas=*/true);
  const ir::Stmt before = lower(*d.s);
  EXPECT_THAT(ir::to_string(before), HasSubstr("// attr pragma_dma_copy = 1"));
  const std::string after = ir::to_string(passes::detect_dma(before));
  EXPECT_THAT(after, ::testing::Not(HasSubstr("pragma_dma_copy")));
  EXPECT_THAT(after,
              HasSubstr("weft.dma_copy2d(A.inp, A, 0, ((i.outer*8) + (ko.outer*2)), 2, 2, 2, 4)"));
  EXPECT_THAT(after,
              HasSubstr("weft.dma_copy2d(W.wgt, W, 0, ((j.outer*8) + (ko.outer*2)), 2, 2, 2, 4)"));
  EXPECT_THAT(after,
              HasSubstr("weft.dma_copy2d(C, C.acc, ((i.outer*8) + (j.outer*2)), 0, 2, 2, 4, 2)"));
}

TEST(DetectDma, CopiesKeepTheResult) {
  for (const GemmIntrinsic& g : {GemmIntrinsic{8, 8, 8}, GemmIntrinsic{1, 16, 16}}) {
    PackedDense d(g, 4, 2, 3, 2, 1, 3, /*dma_pragmas=*/true);
    std::mt19937 rng(3);
    ir::BufferData data;
    for (const Tensor& t : {d.a, d.w}) {
      auto& v = data[t->buffer.get()];
      v.resize(static_cast<size_t>(t->buffer->elements()));
      for (auto& x : v) x = static_cast<int8_t>(rng());
    }
    data[d.c->buffer.get()].assign(static_cast<size_t>(d.c->buffer->elements()), 0);
    ir::BufferData copy = data;
    auto intrinsics = gemm_semantics(g);
    ir::interpret(lower(*d.s), data, intrinsics);
    intrinsics[ir::Intrinsic::kDmaCopy2d] = dma_semantics();
    ir::interpret(passes::detect_dma(lower(*d.s)), copy, intrinsics);
    EXPECT_EQ(copy[d.c->buffer.get()], data[d.c->buffer.get()]);
  }
}

TEST(DetectDma, PatternBreaksAreErrors) {
  // A partial tile: 3 row blocks in tiles of 2 leaves a guarded copy.
  PackedDense partial(GemmIntrinsic{1, 4, 4}, 3, 2, 2, 2, 2, 2, /*dma_pragmas=*/true);
  EXPECT_THAT([&] { passes::detect_dma(lower(*partial.s)); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("a partial tile; pad the tensor")));

  // A copy whose innermost loop is not a block dimension.
  const ir::Buffer src = ir::make_buffer("S", ir::DType::kInt8, {4, 4, 2, 2});
  const ir::Buffer dst = ir::make_buffer("D", ir::DType::kInt8, {4, 4, 2, 2}, ir::Scope::kInp);
  const ir::Var a = ir::make_var("a"), b = ir::make_var("b"), c = ir::make_var("c"),
                e = ir::make_var("e");
  auto copy = [&](std::vector<ir::Expr> di, std::vector<ir::Expr> si) {
    return ir::attr(
        "pragma_dma_copy", ir::imm(1),
        ir::for_loop(
            a, ir::imm(0), ir::imm(4), ir::ForKind::kSerial,
            ir::for_loop(b, ir::imm(0), ir::imm(4), ir::ForKind::kSerial,
                         ir::for_loop(c, ir::imm(0), ir::imm(2), ir::ForKind::kSerial,
                                      ir::for_loop(e, ir::imm(0), ir::imm(2), ir::ForKind::kSerial,
                                                   ir::store(dst, di, ir::load(src, si)))))));
  };
  using ir::ref;
  EXPECT_THAT(
      [&] {
        passes::detect_dma(
            copy({ref(a), ref(b), ref(e), ref(c)}, {ref(a), ref(b), ref(c), ref(e)}));
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("DMA copy into 'D': block dimension 2 must be copied whole by loop 'c'")));
  EXPECT_THAT(
      [&] {
        passes::detect_dma(
            copy({ref(b), ref(a), ref(c), ref(e)}, {ref(a), ref(b), ref(c), ref(e)}));
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("loop 'b' must step one block in both buffers")));
}

}  // namespace
}  // namespace weft::compiler::te
