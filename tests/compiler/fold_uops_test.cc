// Pass fold_uops: GEMM and ALU block nests become micro-op kernels (two hardware loops plus an
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
    intrinsics[ir::Intrinsic::kDmaCopy2d] = dma_semantics();
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
                   ir::evaluate(ir::call(ir::DType::kInt32, ir::Intrinsic::kGemmReset,
                                         {ir::floordiv(ir::ref(i), ir::imm(2))}, {acc})));
  EXPECT_THAT([&] { passes::fold_uops(s); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("index (i/2) is not affine")));
}

// An ALU pass nest: weft.alu(ACC, ACC, dst, src, op, use_imm, imm) under three loops.
ir::Stmt alu_nest(const ir::Buffer& acc, const std::vector<ir::Var>& v,
                  const std::vector<int64_t>& extents, ir::Expr dst, ir::Expr src,
                  std::vector<ir::Expr> constants) {
  std::vector<ir::Expr> args = {std::move(dst), std::move(src)};
  args.insert(args.end(), constants.begin(), constants.end());
  ir::Stmt body = ir::evaluate(ir::call(DType::kInt32, ir::Intrinsic::kAlu, args, {acc, acc}));
  for (size_t n = v.size(); n-- > 0;) {
    body = ir::for_loop(v[n], ir::imm(0), ir::imm(extents[n]), ir::ForKind::kSerial, body);
  }
  return body;
}

TEST(FoldUops, AluNestsBecomeAluKernels) {
  const ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {2, 3, 2, 1, 4}, ir::Scope::kAcc);
  const ir::Var i = ir::make_var("i"), j = ir::make_var("j"), u = ir::make_var("u");
  using ir::ref;
  // dst = src = i*6 + j*2 + u: (i, j) are the hardware loops with factors 6 and 2, u becomes
  // two micro-ops {0, 0} and {1, 1}; opcode, use_imm and immediate pass through.
  const ir::Expr block =
      ir::add(ir::add(ir::mul(ref(i), ir::imm(6)), ir::mul(ref(j), ir::imm(2))), ref(u));
  const ir::Stmt nest =
      alu_nest(acc, {i, j, u}, {2, 3, 2}, block, block, {ir::imm(3), ir::imm(1), ir::imm(-7)});
  EXPECT_EQ(ir::to_string(passes::fold_uops(nest)),
            "weft.alu_kernel(C.acc, C.acc, 2, 3, 6, 2, 6, 2, 3, 1, -7, 2, 0, 0, 1, 1)\n");
  // Two loops, one micro-op; a register operand (use_imm 0) keeps its own src field.
  const ir::Stmt two = alu_nest(acc, {i, j}, {2, 3}, ir::add(ir::mul(ref(i), ir::imm(3)), ref(j)),
                                ir::add(ir::add(ir::mul(ref(i), ir::imm(3)), ref(j)), ir::imm(6)),
                                {ir::imm(2), ir::imm(0), ir::imm(0)});
  EXPECT_EQ(ir::to_string(passes::fold_uops(two)),
            "weft.alu_kernel(C.acc, C.acc, 2, 3, 3, 1, 3, 1, 2, 0, 0, 1, 0, 6)\n");
  // A single call: extent-1 hardware loops.
  const ir::Stmt one =
      alu_nest(acc, {}, {}, ir::imm(5), ir::imm(5), {ir::imm(0), ir::imm(1), ir::imm(127)});
  EXPECT_EQ(ir::to_string(passes::fold_uops(one)),
            "weft.alu_kernel(C.acc, C.acc, 1, 1, 0, 0, 0, 0, 0, 1, 127, 1, 5, 5)\n");
}

TEST(FoldUops, AluConstantsMayDependOnOuterLoopsButNotOnTheNest) {
  const ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {4, 1, 4}, ir::Scope::kAcc);
  const ir::Var t = ir::make_var("t"), i = ir::make_var("i");
  using ir::ref;
  // The immediate changes with the nest's loop i: no single instruction can hold it.
  EXPECT_THAT(
      [&] {
        passes::fold_uops(
            alu_nest(acc, {i}, {4}, ref(i), ref(i), {ir::imm(2), ir::imm(1), ref(i)}));
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("micro-op folding of weft.alu: operand i changes with loop 'i'")));
  // The opcode too.
  EXPECT_THAT(
      [&] {
        passes::fold_uops(alu_nest(acc, {i}, {4}, ref(i), ref(i),
                                   {ir::add(ref(i), ir::imm(1)), ir::imm(1), ir::imm(3)}));
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("changes with loop 'i'")));
  // A loop outside the nest (here t, which emission evaluates) is fine: the constant is kept.
  const ir::Stmt outer =
      ir::for_loop(t, ir::imm(0), ir::imm(2), ir::ForKind::kSerial,
                   ir::seq({ir::evaluate(ir::imm(0)),
                            alu_nest(acc, {i}, {4}, ref(i), ref(i),
                                     {ir::imm(2), ir::imm(1), ir::add(ref(t), ir::imm(1))})}));
  EXPECT_EQ(ir::to_string(passes::fold_uops(outer)),
            "for (t, 0, 2) {\n"
            "  0\n"
            "  weft.alu_kernel(C.acc, C.acc, 1, 4, 0, 1, 0, 1, 2, 1, (t + 1), 1, 0, 0)\n"
            "}\n");
}

}  // namespace
}  // namespace weft::compiler::te
