// GPU launch configuration (compiler/codegen/cuda/launch_config.h) from hand-made loop IR with
// typed bindings: grid and block from the bound loops, shared memory rounded to 32 bytes, and
// the checks that name a loop (a bound loop without a constant extent, a barrier under a
// guarded binding, a global store that every thread would run).
#include "compiler/codegen/cuda/launch_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/codegen/cuda/insert_barriers.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {
namespace {

using ir::DType;
using ir::ThreadAxis;
using ::testing::HasSubstr;

ir::Stmt bound(const ir::Var& v, int64_t extent, ThreadAxis a, ir::Stmt body) {
  return ir::for_loop(v, ir::imm(0), ir::imm(extent), ir::ForKind::kSerial, std::move(body), a);
}

TEST(LaunchConfig, GridAndBlockComeFromTheBoundLoops) {
  const ir::Buffer y = ir::make_buffer("Y", DType::kFloat32, {6, 64});
  const ir::Buffer t = ir::make_buffer("T", DType::kFloat32, {10}, ir::Scope::kShared);
  const ir::Var by = ir::make_var("by"), bx = ir::make_var("bx"), tx = ir::make_var("tx"),
                ty = ir::make_var("ty");
  const ir::Expr col = ir::add(ir::mul(ir::ref(bx), ir::imm(16)), ir::ref(tx));
  const ir::Stmt body =
      bound(by, 6, ThreadAxis::kBlockY,
            bound(bx, 4, ThreadAxis::kBlockX,
                  ir::allocate(t, bound(tx, 16, ThreadAxis::kThreadX,
                                        bound(ty, 2, ThreadAxis::kThreadY,
                                              ir::store(y, {ir::ref(by), col}, ir::fimm(1.0)))))));
  const LaunchConfig c = launch_config("k", body, GpuLimits{});
  EXPECT_EQ(c.grid, (std::array<int64_t, 3>{4, 6, 1}));
  EXPECT_EQ(c.block, (std::array<int64_t, 3>{16, 2, 1}));
  EXPECT_EQ(c.shared_bytes, 64);  // 40 bytes, rounded up to 32-byte multiples
}

TEST(LaunchConfig, ChecksNameTheLoop) {
  const ir::Buffer y = ir::make_buffer("Y", DType::kFloat32, {64});
  const ir::Var tx = ir::make_var("tx"), n = ir::make_var("n"), i = ir::make_var("i");
  // A bound loop whose extent is not a constant.
  EXPECT_THAT(
      [&] {
        launch_config(
            "k",
            ir::for_loop(tx, ir::imm(0), ir::ref(n), ir::ForKind::kSerial,
                         ir::store(y, {ir::ref(tx)}, ir::fimm(0.0)), ThreadAxis::kThreadX),
            GpuLimits{});
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("loop 'tx' is bound to threadIdx.x but its extent is not a constant")));
  // Two loops on threadIdx.x with different extents: the smaller is guarded, and a barrier
  // inside it would not be reached by every thread.
  const ir::Var t2 = ir::make_var("t2");
  const ir::Stmt guarded_barrier =
      ir::seq({bound(tx, 32, ThreadAxis::kThreadX, ir::store(y, {ir::ref(tx)}, ir::fimm(0.0))),
               bound(t2, 16, ThreadAxis::kThreadX, sync_threads())});
  EXPECT_THAT([&] { launch_config("k", guarded_barrier, GpuLimits{}); },
              ::testing::ThrowsMessage<UserError>(HasSubstr(
                  "loop 't2' is bound with an extent smaller than the launch, so it is guarded")));
  // A global store under no threadIdx binding in a block of 32 threads.
  const ir::Stmt every_thread =
      ir::seq({bound(tx, 32, ThreadAxis::kThreadX, ir::evaluate(ir::imm(0))),
               ir::for_loop(i, ir::imm(0), ir::imm(64), ir::ForKind::kSerial,
                            ir::store(y, {ir::ref(i)}, ir::fimm(0.0)))});
  EXPECT_THAT([&] { launch_config("k", every_thread, GpuLimits{}); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("the store to 'Y' is under no loop bound to threadIdx, so loop 'i'")));
}

}  // namespace
}  // namespace weft::compiler::codegen
