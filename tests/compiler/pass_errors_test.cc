// Errors of the passes that run late in the accelerator pipeline: a virtual thread whose inner
// loop bounds depend on the thread, and a program handed to emission before every pass ran.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/passes/emit_accel.h"
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
  EXPECT_THAT(
      [&] { emit_accel(ir::evaluate(ir::call(ir::DType::kInt32, "weft.mystery", {}))); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("unknown accelerator call 'weft.mystery'")));
}

}  // namespace
}  // namespace weft::compiler::passes
