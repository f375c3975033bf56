// Pass assign_queues: every accelerator call is wrapped in the `weft.queue` of the module that
// runs it (the ISA's routing: input/weight loads on load, accumulator loads and kernels on
// compute, stores on store), checked as printed IR before/after; unknown calls are errors.
#include "compiler/passes/assign_queues.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/passes/emit_accel.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {
namespace {

using ir::DType;
using ::testing::HasSubstr;

struct Buffers {
  ir::Buffer a = ir::make_buffer("A", DType::kInt8, {2, 1, 4});
  ir::Buffer w = ir::make_buffer("W", DType::kInt8, {2, 4, 4});
  ir::Buffer c = ir::make_buffer("C", DType::kInt32, {2, 1, 4});
  ir::Buffer d = ir::make_buffer("D", DType::kInt8, {2, 1, 4});
  ir::Buffer inp = ir::make_buffer("A.inp", DType::kInt8, {2, 1, 4}, ir::Scope::kInp);
  ir::Buffer wgt = ir::make_buffer("W.wgt", DType::kInt8, {2, 4, 4}, ir::Scope::kWgt);
  ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {2, 1, 4}, ir::Scope::kAcc);
};

ir::Stmt call(ir::Intrinsic op, std::vector<int64_t> args, std::vector<ir::Buffer> bufs) {
  std::vector<ir::Expr> a;
  for (int64_t v : args) a.push_back(ir::imm(v));
  return ir::evaluate(ir::call(DType::kInt32, op, a, std::move(bufs)));
}

TEST(AssignQueues, EachCallGoesToItsModule) {
  Buffers b;
  const ir::Stmt dma_a = call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 2, 2, 2}, {b.inp, b.a});
  const ir::Stmt dma_w = call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 2, 2, 2}, {b.wgt, b.w});
  const ir::Stmt dma_c = call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 2, 2, 2}, {b.acc, b.c});
  const ir::Stmt reset = call(ir::Intrinsic::kGemmResetKernel, {1, 1, 0, 0, 1, 0}, {b.acc});
  const ir::Stmt gemm =
      call(ir::Intrinsic::kGemmKernel, {1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, {b.acc, b.inp, b.wgt});
  const ir::Stmt alu =
      call(ir::Intrinsic::kAluKernel, {1, 1, 0, 0, 0, 0, 3, 1, 8, 1, 0, 0}, {b.acc, b.acc});
  const ir::Stmt store = call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 2, 2, 2}, {b.d, b.acc});
  const ir::Var i = ir::make_var("i");
  const ir::Stmt program = ir::allocate(
      b.acc, ir::seq({dma_a, dma_w, dma_c, reset,
                      ir::for_loop(i, ir::imm(0), ir::imm(2), ir::ForKind::kSerial, gemm), alu,
                      store, ir::evaluate(ir::imm(0))}));
  EXPECT_EQ(ir::to_string(assign_queues(program)),
            "allocate C.acc[int32 * 2 * 1 * 4] in acc.acc\n"
            "// attr weft.queue = 0\n"
            "weft.dma_copy2d(A.inp, A, 0, 0, 1, 2, 2, 2)\n"
            "// attr weft.queue = 0\n"
            "weft.dma_copy2d(W.wgt, W, 0, 0, 1, 2, 2, 2)\n"
            "// attr weft.queue = 1\n"
            "weft.dma_copy2d(C.acc, C, 0, 0, 1, 2, 2, 2)\n"
            "// attr weft.queue = 1\n"
            "weft.gemm_reset_kernel(C.acc, 1, 1, 0, 0, 1, 0)\n"
            "for (i, 0, 2) {\n"
            "  // attr weft.queue = 1\n"
            "  weft.gemm_kernel(C.acc, A.inp, W.wgt, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0)\n"
            "}\n"
            "// attr weft.queue = 1\n"
            "weft.alu_kernel(C.acc, C.acc, 1, 1, 0, 0, 0, 0, 3, 1, 8, 1, 0, 0)\n"
            "// attr weft.queue = 2\n"
            "weft.dma_copy2d(D, C.acc, 0, 0, 1, 2, 2, 2)\n"
            "0\n");
}

TEST(AssignQueues, TheQueuesAreTheOnesEmissionAccepts) {
  // emit_accel checks each call's queue against the ISA's routing (an internal error if they
  // disagree) and records it on the operation.
  Buffers b;
  const ir::Stmt program = ir::seq(
      {call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 1, 1, 1}, {b.inp, b.a}),
       call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 1, 1, 1}, {b.wgt, b.w}),
       call(ir::Intrinsic::kGemmKernel, {1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
            {b.acc, b.inp, b.wgt}),
       call(ir::Intrinsic::kAluKernel, {1, 1, 0, 0, 0, 0, 0, 1, 127, 1, 0, 0}, {b.acc, b.acc}),
       call(ir::Intrinsic::kDmaCopy2d, {0, 0, 1, 1, 1, 1}, {b.d, b.acc})});
  const accel::Program p = emit_accel(assign_queues(program));
  ASSERT_EQ(p.ops.size(), 5u);
  const isa::Module expect[] = {isa::Module::kLoad, isa::Module::kLoad, isa::Module::kCompute,
                                isa::Module::kCompute, isa::Module::kStore};
  for (size_t n = 0; n < 5; ++n) EXPECT_EQ(p.ops[n].module, expect[n]) << "op " << n;
}

TEST(AssignQueues, UnknownCallsAreErrors) {
  Buffers b;
  // An ALU block call that fold_uops has not turned into a kernel.
  EXPECT_THAT(
      [&] {
        assign_queues(call(ir::Intrinsic::kAlu, {0, 0, 3, 1, 8}, {b.acc, b.acc}));
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("assign_queues: 'weft.alu' is not an accelerator instruction (has fold_uops "
                    "run?)")));
  const ir::Var i = ir::make_var("i");
  EXPECT_THAT(
      [&] {
        assign_queues(ir::for_loop(i, ir::imm(0), ir::imm(2), ir::ForKind::kSerial,
                                   call(ir::Intrinsic::kRcp, {1}, {})));
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("'weft.cuda.rcp' is not an accelerator")));
}

}  // namespace
}  // namespace weft::compiler::passes
