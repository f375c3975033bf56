// Functional model: dependency tokens between the load, compute and store modules. Each test
// is built so that the result differs when a token is not honoured: a load that must wait for
// the compute module to finish reading its buffer (WAR), an ALU that must wait for a STORE to
// read the old accumulator (WAR) and a STORE that must wait for compute (RAW). Also x_size == 0
// transfers that only move tokens, and a queue filled exactly to its depth.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"

namespace weft::test {
namespace {

using isa::AluOp;
using isa::MemType;
using isa::Uop;
using ::testing::ElementsAreArray;

class TokensTest : public FunctionalSimTest {};

// Two input tiles pass through one INP slot: the second LOAD waits (pop_next) until the
// first GEMM has read the slot and said so (push_prev).
TEST_P(TokensTest, LoadWaitsForComputeBeforeReusingABuffer) {
  const Int8Matrix a1 = random_matrix(batch(), block_in(), 1);
  const Int8Matrix a2 = random_matrix(batch(), block_in(), 2);
  const Int8Matrix w = random_matrix(block_out(), block_in(), 3);
  ProgramBuilder b = builder();
  const int64_t inp1 = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a1));
  const int64_t inp2 = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a2));
  const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
  const int64_t uop = b.add_uops({Uop{0, 0, 0}, Uop{1, 0, 0}});
  b.load_1d(MemType::kUop, 0, uop, 2);
  b.gemm_reset(0, 2);
  b.load_1d(MemType::kWgt, 0, wgt, 1);
  b.load_1d(MemType::kInp, 0, inp1, 1, kPushNext);
  b.gemm(0, 1, Loops{}, kPopPrev | kPushPrev);  // ACC[0] from the first tile
  b.load_1d(MemType::kInp, 0, inp2, 1, kPopNext | kPushNext);
  b.gemm(1, 2, Loops{}, kPopPrev);  // ACC[1] from the second tile
  b.finish();
  Program p = b.build();
  run(p);

  EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(0, 1), 1, 1), ref_matmul(a1, w));
  EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(1, 1), 1, 1), ref_matmul(a2, w));
}

// STORE, ALU ADD 1, STORE on one accumulator tile: the ALU waits for the first STORE
// (store->compute) and the second STORE waits for the ALU (compute->store).
TEST_P(TokensTest, ComputeAndStoreTakeTurnsOnOneTile) {
  const std::vector<int32_t> v = random_int32(acc_lanes(), 4, -100, 100);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(v);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  const int64_t out1 = b.alloc(MemType::kOut, 1);
  const int64_t out2 = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.load_1d(MemType::kAcc, 0, acc, 1, kPushNext);
  b.store(0, out1, 1, 1, 1, kPopPrev | kPushPrev);
  b.alu_imm(AluOp::kAdd, 1, 0, 1, Loops{}, kPopNext | kPushNext);
  b.store(0, out2, 1, 1, 1, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  run(p);

  std::vector<int32_t> plus1;
  for (int32_t x : v) plus1.push_back(x + 1);
  EXPECT_THAT(p.int8s(MemType::kOut, out1, 1), ElementsAreArray(narrow8(v)));
  EXPECT_THAT(p.int8s(MemType::kOut, out2, 1), ElementsAreArray(narrow8(plus1)));
}

// Empty transfers (x_size == 0) carry tokens around all four queues and move no data.
TEST_P(TokensTest, EmptyTransfersOnlyMoveTokens) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);             // load->compute
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev | kPushNext);  // compute->store
  b.store(0, 0, 0, 0, 0, kPopPrev | kPushPrev);                        // store->compute
  b.load(MemType::kAcc, 0, 0, 0, 0, 0, Pads{}, kPopNext | kPushPrev);  // compute->load
  b.load(MemType::kWgt, 0, 0, 0, 0, 0, Pads{}, kPopNext | kPushNext);  // load->compute
  b.finish(kPopPrev);
  Program p = b.build();
  const sim::VtaCounters c = run(p);
  sim::VtaCounters expected;
  expected.insn_count = 6;
  EXPECT_EQ(c, expected);
}

// Every queue accepts exactly token_queue_depth tokens before they are popped.
TEST_P(TokensTest, QueueHoldsExactlyItsDepth) {
  const int64_t depth = layout().config.token_queue_depth;
  ProgramBuilder b = builder();
  for (int64_t i = 0; i < depth; ++i) b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  for (int64_t i = 0; i < depth; ++i) b.gemm(0, 0, Loops{}, kPopPrev);
  b.finish();
  Program p = b.build();
  EXPECT_EQ(run(p).insn_count, static_cast<uint64_t>(2 * depth + 1));
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(TokensTest);

}  // namespace
}  // namespace weft::test
