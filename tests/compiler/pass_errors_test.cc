// Errors of the passes that run late in the accelerator pipeline: a virtual thread whose inner
// loop bounds depend on the thread, a program handed to queue assignment or emission before
// every pass ran, and a dependency no token queue can carry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/passes/assign_queues.h"
#include "compiler/passes/emit_accel.h"
#include "compiler/passes/plan_tokens.h"
#include "compiler/passes/expand_vthreads.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {
namespace {

using ::testing::HasSubstr;

TEST(PassErrors, VirtualThreadWithThreadDependentLoop) {
  const ir::Var v = ir::make_var("v"), i = ir::make_var("i");
  const ir::Buffer b = ir::make_buffer("B", ir::DType::kInt32, {8});
  const ir::Stmt s =
      ir::for_loop(v, ir::imm(0), ir::imm(2), ir::ForKind::kVirtualThread,
                   ir::for_loop(i, ir::imm(0), ir::add(ir::ref(v), ir::imm(1)),
                                ir::ForKind::kSerial, ir::store(b, {ir::ref(i)}, ir::imm(0))));
  EXPECT_THAT([&] { expand_vthreads(s); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("virtual thread 'v': loop 'i' inside it has bounds that depend")));
}

TEST(PassErrors, EmissionBeforeThePassesRan) {
  const ir::Buffer b = ir::make_buffer("B", ir::DType::kInt32, {8});
  EXPECT_THAT([&] { emit_accel(ir::store(b, {ir::imm(0)}, ir::imm(1))); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("has every pass run?")));
  // A GPU barrier: an intrinsic of the registry that is no accelerator instruction.
  const ir::Stmt foreign =
      ir::evaluate(ir::call(ir::DType::kInt32, ir::Intrinsic::kSyncThreads, {}));
  EXPECT_THAT([&] { emit_accel(foreign); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("has assign_queues run?")));
  EXPECT_THAT([&] { emit_accel(ir::attr(ir::kQueueAttr, ir::imm(1), foreign)); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("unknown accelerator call 'weft.cuda.syncthreads'")));
}

TEST(PassErrors, QueueAssignmentOfAnUnknownCall) {
  EXPECT_THAT(
      [&] {
        const ir::Buffer acc =
            ir::make_buffer("C.acc", ir::DType::kInt32, {1, 1, 4}, ir::Scope::kAcc);
        assign_queues(ir::evaluate(
            ir::call(ir::DType::kInt32, ir::Intrinsic::kGemmReset, {ir::imm(0)}, {acc})));
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("'weft.gemm_reset' is not an accelerator "
                                                    "instruction (has fold_uops run?)")));
}

TEST(PassErrors, TokensBetweenLoadAndStoreAreImpossible) {
  // A store of a block that a load just wrote (say the accumulator): load and store share
  // no token queue.
  accel::Program p;
  accel::Op load;
  load.kind = accel::Op::Kind::kLoad;
  load.mem = isa::MemType::kInp;
  load.module = isa::Module::kLoad;
  load.y_size = load.x_size = 1;
  accel::Op store = load;
  store.kind = accel::Op::Kind::kStore;
  store.module = isa::Module::kStore;
  p.ops = {load, store};
  EXPECT_THAT([&] { plan_tokens(p); },
              ::testing::ThrowsMessage<UserError>(HasSubstr(
                  "the store module depends on the load module, which it cannot exchange")));
}

}  // namespace
}  // namespace weft::compiler::passes
