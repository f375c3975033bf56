// Pass emit_accel: queue-assigned accelerator calls become the flat program, one operation per
// call in program order with its loops evaluated; checked as the whole program's text. A
// padded load becomes a smaller read with pads; what is left for other passes is an error.
#include "compiler/passes/emit_accel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "hardware/isa/errors.h"

namespace weft::compiler::passes {
namespace {

using ir::DType;
using ir::Intrinsic;

// One line per operation.
std::string text(const accel::Program& p) {
  std::ostringstream o;
  for (const accel::Op& op : p.ops) {
    o << isa::module_name(op.module) << ": ";
    switch (op.kind) {
      case accel::Op::Kind::kLoad:
      case accel::Op::Kind::kStore:
        o << (op.kind == accel::Op::Kind::kLoad ? "load" : "store") << " mem "
          << static_cast<int>(op.mem) << " " << op.tensor->name << " sram " << op.sram_base
          << " dram " << op.dram_offset << " " << op.y_size << "x" << op.x_size << " stride "
          << op.x_stride << " pads " << op.y_pad0 << " " << op.y_pad1 << " " << op.x_pad0 << " "
          << op.x_pad1;
        break;
      case accel::Op::Kind::kGemm:
      case accel::Op::Kind::kAlu:
        if (op.kind == accel::Op::Kind::kGemm) {
          o << (op.reset ? "gemm reset" : "gemm");
        } else {
          o << "alu " << static_cast<int>(op.alu_op) << (op.use_imm ? " imm " : " tile ") << op.imm;
        }
        o << " iter " << op.iter_out << "x" << op.iter_in << " dst " << op.dst_factor_out << ","
          << op.dst_factor_in << " src " << op.src_factor_out << "," << op.src_factor_in << " wgt "
          << op.wgt_factor_out << "," << op.wgt_factor_in << " uops";
        for (const isa::Uop& u : op.uops) o << " (" << u.dst << "," << u.src << "," << u.wgt << ")";
        break;
      default:
        o << "token";
    }
    o << "\n";
  }
  return o.str();
}

ir::Stmt on(isa::Module m, Intrinsic op, std::vector<int64_t> args, std::vector<ir::Buffer> bufs) {
  std::vector<ir::Expr> a;
  for (int64_t v : args) a.push_back(ir::imm(v));
  return ir::attr(ir::kQueueAttr, ir::imm(static_cast<int64_t>(m)),
                  ir::evaluate(ir::call(DType::kInt32, op, a, std::move(bufs))));
}

TEST(EmitAccel, OneOperationPerCallInProgramOrder) {
  const ir::Buffer a = ir::make_buffer("A", DType::kInt8, {8, 1, 4});
  const ir::Buffer d = ir::make_buffer("D", DType::kInt8, {8, 1, 4});
  const ir::Buffer inp = ir::make_buffer("A.inp", DType::kInt8, {2, 1, 4}, ir::Scope::kInp);
  const ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {2, 1, 4}, ir::Scope::kAcc);
  const ir::Var i = ir::make_var("i");
  // The load's DRAM offset follows the loop: i*2 blocks.
  const ir::Stmt load_i =
      ir::attr(ir::kQueueAttr, ir::imm(0),
               ir::evaluate(ir::call(DType::kInt32, Intrinsic::kDmaCopy2d,
                                     {ir::imm(0), ir::mul(ir::ref(i), ir::imm(2)), ir::imm(1),
                                      ir::imm(2), ir::imm(2), ir::imm(4)},
                                     {inp, a})));
  const ir::Stmt program = ir::allocate(
      acc,
      ir::allocate(
          inp,
          ir::seq({ir::for_loop(
                       i, ir::imm(0), ir::imm(2), ir::ForKind::kSerial,
                       ir::seq({load_i, on(isa::Module::kCompute, Intrinsic::kGemmResetKernel,
                                           {1, 2, 0, 1, 1, 0}, {acc})})),
                   // Rows from -1: one row of padding above, one row read.
                   on(isa::Module::kLoad, Intrinsic::kDmaCopy2dPad, {0, 0, 2, 2, 2, 4, -1, 3, 0, 4},
                      {inp, a}),
                   on(isa::Module::kCompute, Intrinsic::kAluKernel,
                      {1, 1, 0, 0, 0, 0, 3, 1, 8, 1, 0, 0}, {acc, acc}),
                   on(isa::Module::kStore, Intrinsic::kDmaCopy2d, {4, 0, 1, 2, 2, 2}, {d, acc})})));
  const accel::Program p = emit_accel(program);
  EXPECT_EQ(text(p),
            "load: load mem 2 A sram 0 dram 0 1x2 stride 4 pads 0 0 0 0\n"
            "compute: gemm reset iter 1x2 dst 0,1 src 0,0 wgt 0,0 uops (0,0,0)\n"
            "load: load mem 2 A sram 0 dram 2 1x2 stride 4 pads 0 0 0 0\n"
            "compute: gemm reset iter 1x2 dst 0,1 src 0,0 wgt 0,0 uops (0,0,0)\n"
            "load: load mem 2 A sram 0 dram 4 1x2 stride 4 pads 1 0 0 0\n"
            "compute: alu 3 imm 8 iter 1x1 dst 0,0 src 0,0 wgt 0,0 uops (0,0,0)\n"
            "store: store mem 4 D sram 0 dram 4 1x2 stride 2 pads 0 0 0 0\n");
  ASSERT_EQ(p.tensors.size(), 2u);
  EXPECT_EQ(p.tensors[0], a);
  EXPECT_EQ(p.tensors[1], d);
}

TEST(EmitAccel, ACallOnTheWrongQueueOrACopyWithinDramAreErrors) {
  const ir::Buffer a = ir::make_buffer("A", DType::kInt8, {8, 1, 4});
  const ir::Buffer b = ir::make_buffer("B", DType::kInt8, {8, 1, 4});
  const ir::Buffer inp = ir::make_buffer("A.inp", DType::kInt8, {2, 1, 4}, ir::Scope::kInp);
  EXPECT_THAT(
      [&] {
        emit_accel(on(isa::Module::kCompute, Intrinsic::kDmaCopy2d, {0, 0, 1, 1, 1, 1}, {inp, a}));
      },
      ::testing::ThrowsMessage<InternalError>(
          ::testing::HasSubstr("weft.dma_copy2d was assigned to the wrong queue")));
  EXPECT_THAT(
      [&] {
        emit_accel(on(isa::Module::kLoad, Intrinsic::kDmaCopy2d, {0, 0, 1, 1, 1, 1}, {b, a}));
      },
      ::testing::ThrowsMessage<UserError>(::testing::HasSubstr(
          "a DMA copy must move between DRAM and an on-chip buffer ('B' <- 'A')")));
}

}  // namespace
}  // namespace weft::compiler::passes
