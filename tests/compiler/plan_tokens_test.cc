// Pass plan_tokens on hand-built accelerator programs: read-after-write and write-after-read
// dependencies between modules become a push after the producer and a pop before the
// consumer, ops of one module never exchange tokens, a wait for the latest producer covers
// earlier ones, and a program that already has tokens is rejected.
#include "compiler/passes/plan_tokens.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/errors.h"

namespace weft::compiler::passes {
namespace {

using accel::Op;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Op load(isa::MemType mem, int64_t sram_base, int64_t blocks = 1) {
  Op op;
  op.kind = Op::Kind::kLoad;
  op.mem = mem;
  op.module = accel::module_of(op);
  op.sram_base = sram_base;
  op.y_size = 1;
  op.x_size = op.x_stride = blocks;
  return op;
}
Op load_inp(int64_t base, int64_t blocks = 1) { return load(isa::MemType::kInp, base, blocks); }
Op load_wgt(int64_t base) { return load(isa::MemType::kWgt, base); }

// One micro-op kernel: ACC[acc] += INP[inp] . WGT[wgt] (or = 0).
Op gemm(int64_t acc, int64_t inp, int64_t wgt, bool reset = false) {
  Op op;
  op.kind = Op::Kind::kGemm;
  op.module = isa::Module::kCompute;
  op.reset = reset;
  op.uops = {{acc, inp, wgt}};
  return op;
}
Op reset(int64_t acc) { return gemm(acc, 0, 0, true); }

Op alu(int64_t acc) {
  Op op;
  op.kind = Op::Kind::kAlu;
  op.module = isa::Module::kCompute;
  op.alu_op = isa::AluOp::kShr;
  op.use_imm = true;
  op.imm = 8;
  op.uops = {{acc, acc, 0}};
  return op;
}

Op store(int64_t acc) {
  Op op;
  op.kind = Op::Kind::kStore;
  op.mem = isa::MemType::kOut;
  op.module = isa::Module::kStore;
  op.sram_base = acc;
  op.y_size = op.x_size = op.x_stride = 1;
  return op;
}

// One line per op: "load inp@0", "gemm", "alu", "store", "push load->compute", ...
std::vector<std::string> listing(const accel::Program& p) {
  std::vector<std::string> out;
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case Op::Kind::kLoad:
        out.push_back(std::string("load ") +
                      (op.mem == isa::MemType::kInp   ? "inp"
                       : op.mem == isa::MemType::kWgt ? "wgt"
                                                      : "acc") +
                      "@" + std::to_string(op.sram_base));
        break;
      case Op::Kind::kStore:
        out.push_back("store@" + std::to_string(op.sram_base));
        break;
      case Op::Kind::kGemm:
        out.push_back(op.reset ? "reset" : "gemm");
        break;
      case Op::Kind::kAlu:
        out.push_back("alu");
        break;
      case Op::Kind::kDepPush:
      case Op::Kind::kDepPop:
        out.push_back(std::string(op.kind == Op::Kind::kDepPush ? "push " : "pop ") +
                      isa::module_name(op.from) + "->" + isa::module_name(op.to));
        break;
    }
  }
  return out;
}

std::vector<std::string> plan(std::vector<Op> ops) {
  accel::Program p;
  p.ops = std::move(ops);
  return listing(plan_tokens(p));
}

TEST(PlanTokens, LoadThenGemmIsAReadAfterWrite) {
  // The GEMM reads the blocks both loads wrote: one token, pushed after the later load (the
  // load module runs in order, so it covers the earlier one) and popped before the GEMM.
  EXPECT_THAT(
      plan({load_inp(0), load_wgt(0), gemm(0, 0, 0)}),
      ElementsAre("load inp@0", "load wgt@0", "push load->compute", "pop load->compute", "gemm"));
}

TEST(PlanTokens, ALoadOverwritingATileAGemmReadWaitsForTheGemm) {
  EXPECT_THAT(plan({load_inp(0), load_wgt(0), gemm(0, 0, 0), load_inp(0), gemm(1, 0, 0)}),
              ElementsAre("load inp@0", "load wgt@0", "push load->compute", "pop load->compute",
                          "gemm", "push compute->load", "pop compute->load", "load inp@0",
                          "push load->compute", "pop load->compute", "gemm"));
  // A load into a block no GEMM read does not wait.
  EXPECT_THAT(plan({load_inp(0), load_wgt(0), gemm(0, 0, 0), load_inp(1)}),
              ElementsAre("load inp@0", "load wgt@0", "push load->compute", "pop load->compute",
                          "gemm", "load inp@1"));
}

TEST(PlanTokens, StoreAfterAluAndResetAfterStore) {
  // Reset, ALU and store of one accumulator block: compute ops need no token between them;
  // the store waits for the ALU (RAW), and the next reset of the block for the store (WAR).
  EXPECT_THAT(plan({reset(0), alu(0), store(0), reset(0)}),
              ElementsAre("reset", "alu", "push compute->store", "pop compute->store", "store@0",
                          "push store->compute", "pop store->compute", "reset"));
  // A reset of another block does not wait for the store.
  EXPECT_THAT(
      plan({reset(0), alu(0), store(0), reset(1)}),
      ElementsAre("reset", "alu", "push compute->store", "pop compute->store", "store@0", "reset"));
}

TEST(PlanTokens, OpsOfOneModuleExchangeNoTokens) {
  EXPECT_THAT(plan({load_inp(0), load_inp(0), load_wgt(3)}),
              ElementsAre("load inp@0", "load inp@0", "load wgt@3"));
  EXPECT_THAT(plan({reset(0), gemm(0, 0, 0), alu(0), alu(0), gemm(0, 0, 0)}),
              ElementsAre("reset", "gemm", "alu", "alu", "gemm"));
  EXPECT_THAT(plan({store(0), store(0)}), ElementsAre("store@0", "store@0"));
}

TEST(PlanTokens, WaitingForTheLatestProducerCoversEarlierOnes) {
  // The first GEMM reads the blocks of the last two loads: it waits for the last, which
  // implies every earlier load. The second GEMM depends on the first two loads only: no second
  // token.
  EXPECT_THAT(
      plan({load_inp(0), load_wgt(0), load_inp(1), load_wgt(1), gemm(0, 1, 1), gemm(1, 0, 0)}),
      ElementsAre("load inp@0", "load wgt@0", "load inp@1", "load wgt@1", "push load->compute",
                  "pop load->compute", "gemm", "gemm"));
  // A later consumer that needs a later producer does wait again.
  EXPECT_THAT(plan({load_inp(0), load_wgt(0), gemm(0, 0, 0), load_inp(1), gemm(1, 1, 0)}),
              ElementsAre("load inp@0", "load wgt@0", "push load->compute", "pop load->compute",
                          "gemm", "load inp@1", "push load->compute", "pop load->compute", "gemm"));
  // Stores of blocks two ALU passes wrote: storing the later block first covers the other.
  EXPECT_THAT(plan({reset(0), reset(1), alu(0), alu(1), store(1), store(0)}),
              ElementsAre("reset", "reset", "alu", "alu", "push compute->store",
                          "pop compute->store", "store@1", "store@0"));
  // In the other order each store waits for its own ALU pass: the push goes right after the
  // producer the store needs, not after the last compute op.
  EXPECT_THAT(
      plan({reset(0), reset(1), alu(0), alu(1), store(0), store(1)}),
      ElementsAre("reset", "reset", "alu", "push compute->store", "alu", "push compute->store",
                  "pop compute->store", "store@0", "pop compute->store", "store@1"));
}

TEST(PlanTokens, AMultiBlockLoadIsTrackedPerBlock) {
  // A 3-block input load (blocks 4 to 6): a GEMM reading its last block depends on it; a
  // load over blocks 2 to 6 overwrites the block that GEMM read and waits for it, a load over
  // blocks 0 to 3 does not.
  EXPECT_THAT(plan({load_inp(4, 3), load_wgt(0), gemm(0, 6, 0), load_inp(2, 5)}),
              ElementsAre("load inp@4", "load wgt@0", "push load->compute", "pop load->compute",
                          "gemm", "push compute->load", "pop compute->load", "load inp@2"));
  EXPECT_THAT(plan({load_inp(4, 3), load_wgt(0), gemm(0, 6, 0), load_inp(0, 4)}),
              ElementsAre("load inp@4", "load wgt@0", "push load->compute", "pop load->compute",
                          "gemm", "load inp@0"));
}

TEST(PlanTokens, AProgramWithTokensIsRejected) {
  accel::Program p;
  p.ops = {load_inp(0), load_wgt(0), gemm(0, 0, 0)};
  const accel::Program planned = plan_tokens(p);
  EXPECT_THAT([&] { plan_tokens(planned); }, ::testing::ThrowsMessage<UserError>(HasSubstr(
                                                 "plan_tokens: the program already has tokens")));
  // The planned program keeps the tensors and every original op in order.
  EXPECT_EQ(planned.ops.size(), 5u);
}

}  // namespace
}  // namespace weft::compiler::passes
