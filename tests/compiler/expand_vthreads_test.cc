// Pass expand_vthreads: a virtual-thread loop becomes lockstep copies on per-thread buffers;
// consecutive units bound for the same module repeat as one group per thread (a step's input
// and weight loads, an epilogue's compute passes), checked by the printed order.
#include "compiler/passes/expand_vthreads.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ops/dense.h"
#include "compiler/pipeline.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {
namespace {

using ir::DType;
using ::testing::HasSubstr;

struct Tiles {
  ir::Buffer a = ir::make_buffer("A", DType::kInt8, {4, 1, 4});
  ir::Buffer w = ir::make_buffer("W", DType::kInt8, {1, 4, 4});
  ir::Buffer d = ir::make_buffer("D", DType::kInt8, {4, 1, 4});
  ir::Buffer inp = ir::make_buffer("A.inp", DType::kInt8, {1, 1, 4}, ir::Scope::kInp);
  ir::Buffer wgt = ir::make_buffer("W.wgt", DType::kInt8, {1, 4, 4}, ir::Scope::kWgt);
  ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {1, 1, 4}, ir::Scope::kAcc);
  ir::Var v = ir::make_var("v");

  ir::Stmt call(ir::Intrinsic op, std::vector<ir::Expr> args, std::vector<ir::Buffer> bufs) const {
    return ir::evaluate(ir::call(DType::kInt32, op, std::move(args), std::move(bufs)));
  }
  ir::Stmt load_a() const {
    return call(ir::Intrinsic::kDmaCopy2d,
                {ir::imm(0), ir::ref(v), ir::imm(1), ir::imm(1), ir::imm(1), ir::imm(1)}, {inp, a});
  }
  ir::Stmt load_w() const {
    return call(ir::Intrinsic::kDmaCopy2d,
                {ir::imm(0), ir::imm(0), ir::imm(1), ir::imm(1), ir::imm(1), ir::imm(1)}, {wgt, w});
  }
  ir::Stmt gemm() const {
    return call(ir::Intrinsic::kGemm, {ir::imm(0), ir::imm(0), ir::imm(0)}, {acc, inp, wgt});
  }
  ir::Stmt reset() const { return call(ir::Intrinsic::kGemmReset, {ir::imm(0)}, {acc}); }
  ir::Stmt alu(int64_t op, int64_t imm) const {
    return ir::attr(
        "pragma_alu", ir::imm(1),
        call(ir::Intrinsic::kAlu, {ir::imm(0), ir::imm(0), ir::imm(op), ir::imm(1), ir::imm(imm)},
             {acc, acc}));
  }
  ir::Stmt store() const {
    return call(ir::Intrinsic::kDmaCopy2d,
                {ir::ref(v), ir::imm(0), ir::imm(1), ir::imm(1), ir::imm(1), ir::imm(1)}, {d, acc});
  }
  // vthread (v, 0, 2) { allocate inp, wgt, acc { body } }
  ir::Stmt threads(std::vector<ir::Stmt> body) const {
    return ir::for_loop(
        v, ir::imm(0), ir::imm(2), ir::ForKind::kVirtualThread,
        ir::allocate(inp, ir::allocate(wgt, ir::allocate(acc, ir::seq(std::move(body))))));
  }
};

const char* kAllocations =
    "allocate A.inp.t0[int8 * 1 * 1 * 4] in acc.inp\n"
    "allocate A.inp.t1[int8 * 1 * 1 * 4] in acc.inp\n"
    "allocate W.wgt.t0[int8 * 1 * 4 * 4] in acc.wgt\n"
    "allocate W.wgt.t1[int8 * 1 * 4 * 4] in acc.wgt\n"
    "allocate C.acc.t0[int32 * 1 * 1 * 4] in acc.acc\n"
    "allocate C.acc.t1[int32 * 1 * 1 * 4] in acc.acc\n";

TEST(ExpandVthreads, AStepsLoadsStayTogetherPerThread) {
  Tiles t;
  // [load A, load W, gemm] on two threads: [A0, W0, A1, W1, G0, G1].
  EXPECT_EQ(ir::to_string(expand_vthreads(t.threads({t.load_a(), t.load_w(), t.gemm()}))),
            std::string(kAllocations) +
                "weft.dma_copy2d(A.inp.t0, A, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(W.wgt.t0, W, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(A.inp.t1, A, 0, 1, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(W.wgt.t1, W, 0, 0, 1, 1, 1, 1)\n"
                "weft.gemm(C.acc.t0, A.inp.t0, W.wgt.t0, 0, 0, 0)\n"
                "weft.gemm(C.acc.t1, A.inp.t1, W.wgt.t1, 0, 0, 0)\n");
}

TEST(ExpandVthreads, RunsOfOneModuleGroupAndOtherModulesSplitThem) {
  Tiles t;
  // reset (compute) | load A, load W (load) | gemm, ALU, ALU (compute) | store (store).
  const ir::Stmt s = t.threads(
      {t.reset(), t.load_a(), t.load_w(), t.gemm(), t.alu(3, 8), t.alu(0, 127), t.store()});
  EXPECT_EQ(ir::to_string(expand_vthreads(s)),
            std::string(kAllocations) +
                "weft.gemm_reset(C.acc.t0, 0)\n"
                "weft.gemm_reset(C.acc.t1, 0)\n"
                "weft.dma_copy2d(A.inp.t0, A, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(W.wgt.t0, W, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(A.inp.t1, A, 0, 1, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(W.wgt.t1, W, 0, 0, 1, 1, 1, 1)\n"
                "weft.gemm(C.acc.t0, A.inp.t0, W.wgt.t0, 0, 0, 0)\n"
                "// attr pragma_alu = 1\n"
                "weft.alu(C.acc.t0, C.acc.t0, 0, 0, 3, 1, 8)\n"
                "// attr pragma_alu = 1\n"
                "weft.alu(C.acc.t0, C.acc.t0, 0, 0, 0, 1, 127)\n"
                "weft.gemm(C.acc.t1, A.inp.t1, W.wgt.t1, 0, 0, 0)\n"
                "// attr pragma_alu = 1\n"
                "weft.alu(C.acc.t1, C.acc.t1, 0, 0, 3, 1, 8)\n"
                "// attr pragma_alu = 1\n"
                "weft.alu(C.acc.t1, C.acc.t1, 0, 0, 0, 1, 127)\n"
                "weft.dma_copy2d(D, C.acc.t0, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(D, C.acc.t1, 1, 0, 1, 1, 1, 1)\n");
  // Loads of one module separated by another module's unit are not grouped.
  EXPECT_EQ(ir::to_string(expand_vthreads(t.threads({t.load_a(), t.gemm(), t.load_w()}))),
            std::string(kAllocations) +
                "weft.dma_copy2d(A.inp.t0, A, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(A.inp.t1, A, 0, 1, 1, 1, 1, 1)\n"
                "weft.gemm(C.acc.t0, A.inp.t0, W.wgt.t0, 0, 0, 0)\n"
                "weft.gemm(C.acc.t1, A.inp.t1, W.wgt.t1, 0, 0, 0)\n"
                "weft.dma_copy2d(W.wgt.t0, W, 0, 0, 1, 1, 1, 1)\n"
                "weft.dma_copy2d(W.wgt.t1, W, 0, 0, 1, 1, 1, 1)\n");
}

TEST(ExpandVthreads, GroupsRepeatInsideTheBodysLoops) {
  Tiles t;
  const ir::Var k = ir::make_var("k");
  const ir::Stmt s = t.threads({ir::for_loop(k, ir::imm(0), ir::imm(3), ir::ForKind::kSerial,
                                             ir::seq({t.load_a(), t.load_w(), t.gemm()}))});
  EXPECT_EQ(ir::to_string(expand_vthreads(s)),
            std::string(kAllocations) +
                "for (k, 0, 3) {\n"
                "  weft.dma_copy2d(A.inp.t0, A, 0, 0, 1, 1, 1, 1)\n"
                "  weft.dma_copy2d(W.wgt.t0, W, 0, 0, 1, 1, 1, 1)\n"
                "  weft.dma_copy2d(A.inp.t1, A, 0, 1, 1, 1, 1, 1)\n"
                "  weft.dma_copy2d(W.wgt.t1, W, 0, 0, 1, 1, 1, 1)\n"
                "  weft.gemm(C.acc.t0, A.inp.t0, W.wgt.t0, 0, 0, 0)\n"
                "  weft.gemm(C.acc.t1, A.inp.t1, W.wgt.t1, 0, 0, 0)\n"
                "}\n");
}

TEST(ExpandVthreads, TheDenseOperatorsLoadsArriveTogetherPerThread) {
  // gemm8x8, two threads along M: after expansion each reduction step loads thread 0's input
  // and weight tiles, then thread 1's, then runs both GEMM kernels.
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const ops::Dense d = ops::make_dense(l, {32, 16, 16}, {1, 1, 1, 2, 'm'}, {8, false});
  std::string text;
  compile_accel(*d.schedule, l, [&](const std::string& pass, const ir::Stmt& s) {
    if (pass == "expand_vthreads") text = ir::to_string(s);
  });
  const size_t a0 = text.find("weft.dma_copy2d(A.inp.t0"),
               w0 = text.find("weft.dma_copy2d(W.wgt.t0"),
               a1 = text.find("weft.dma_copy2d(A.inp.t1"),
               w1 = text.find("weft.dma_copy2d(W.wgt.t1"), g0 = text.find("weft.gemm(C.acc.t0"),
               g1 = text.find("weft.gemm(C.acc.t1");
  ASSERT_NE(g1, std::string::npos) << text;
  EXPECT_LT(a0, w0);
  EXPECT_LT(w0, a1);
  EXPECT_LT(a1, w1);
  EXPECT_LT(w1, g0);
  EXPECT_LT(g0, g1);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("vthread")));
}

}  // namespace
}  // namespace weft::compiler::passes
