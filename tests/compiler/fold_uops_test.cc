// Pass fold_uops: GEMM block nests become micro-op kernels (two hardware loops plus an
// enumerated micro-op list); checked as text and by running the program before and after.
#include "compiler/passes/fold_uops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/printer.h"
#include "compiler/passes/allocate_onchip.h"
#include "compiler/passes/detect_dma.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/packed_dense.h"

namespace weft::compiler::te {
namespace {

using ::testing::HasSubstr;

TEST(FoldUops, NestsBecomeKernels) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  PackedDense d(gemm_intrinsic(l), 4, 4, 4, 2, 2, 2, /*dma_pragmas=*/true);
  const std::string text =
      ir::to_string(passes::fold_uops(passes::allocate_onchip(passes::detect_dma(lower(*d.s)), l)));
  // Reset: loops (ax0, ax1) are the hardware loops, one micro-op.
  EXPECT_THAT(text, HasSubstr("weft.gemm_reset_kernel(C.acc, 2, 2, 2, 1, 1, 0)"));
  // GEMM: loops (ko.inner, ax0) are hardware loops; ax1 is enumerated into two micro-ops
  // {dst 0, src 0, wgt 0} and {dst 1, src 0, wgt 2}.
  EXPECT_THAT(text, HasSubstr("weft.gemm_kernel(C.acc, A.inp, W.wgt, 2, 2, 0, 2, 1, 2, 1, 0, 2, "
                              "0, 0, 0, 1, 0, 2)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("ko.inner")));
}

TEST(FoldUops, KernelsKeepTheResult) {
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    SCOPED_TRACE(config);
    const isa::Layout& l = isa::layout_for(config);
    const GemmIntrinsic g = gemm_intrinsic(l);
    PackedDense d(g, 4, 3, 6, 2, 3, 3, /*dma_pragmas=*/true);
    std::mt19937 rng(11);
    ir::BufferData data;
    for (const Tensor& t : {d.a, d.w}) {
      auto& v = data[t->buffer.get()];
      v.resize(static_cast<size_t>(t->buffer->elements()));
      for (auto& x : v) x = static_cast<int8_t>(rng());
    }
    data[d.c->buffer.get()].assign(static_cast<size_t>(d.c->buffer->elements()), 0);
    ir::BufferData folded = data;
    auto intrinsics = gemm_semantics(g);
    intrinsics["weft.dma_copy2d"] = dma_semantics();
    ir::interpret(lower(*d.s), data, intrinsics);
    ir::interpret(passes::fold_uops(passes::allocate_onchip(passes::detect_dma(lower(*d.s)), l)),
                  folded, intrinsics);
    EXPECT_EQ(folded[d.c->buffer.get()], data[d.c->buffer.get()]);
  }
}

TEST(FoldUops, NonAffineIndexIsAnError) {
  const ir::Buffer acc = ir::make_buffer("ACC", ir::DType::kInt32, {4, 1, 4}, ir::Scope::kAcc);
  const ir::Var i = ir::make_var("i");
  const ir::Stmt s =
      ir::for_loop(i, ir::imm(0), ir::imm(4), ir::ForKind::kSerial,
                   ir::evaluate(ir::call(ir::DType::kInt32, "weft.gemm_reset",
                                         {ir::floordiv(ir::ref(i), ir::imm(2))}, {acc})));
  EXPECT_THAT([&] { passes::fold_uops(s); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("index (i/2) is not affine")));
}

}  // namespace
}  // namespace weft::compiler::te
