// Functional model: VTA's profiler counters. One program exercises every counter, with the
// cases that must not count (padding, empty transfers, reset GEMMs) mixed in; the expected
// numbers are written from the configuration's GEMM shape, not from the layout's helpers.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"

namespace weft::test {
namespace {

using isa::AluOp;
using isa::MemType;
using isa::Uop;

class CountersTest : public FunctionalSimTest {};

TEST_P(CountersTest, EveryCounterOfOneProgram) {
  const uint64_t inp_elem = static_cast<uint64_t>(batch() * block_in());
  const uint64_t wgt_elem = static_cast<uint64_t>(block_out() * block_in());
  const uint64_t lanes = static_cast<uint64_t>(batch() * block_out());

  ProgramBuilder b = builder();
  const int64_t inp = b.add_int8(MemType::kInp, random_int8(12 * inp_elem, 1));
  const int64_t wgt = b.add_int8(MemType::kWgt, random_int8(4 * wgt_elem, 2));
  const int64_t acc = b.add_int32(random_int32(2 * lanes, 3, -1000, 1000));
  const int64_t acc8 = b.add_int8(MemType::kAcc8Bit, random_int8(3 * lanes, 4));
  const int64_t uops = b.add_uops({Uop{0, 0, 0}, Uop{1, 1, 1}, Uop{2, 3, 0}});
  const int64_t out = b.alloc(MemType::kOut, 12);

  b.load_1d(MemType::kUop, 0, uops, 3);                           // 3 uops
  b.load(MemType::kInp, 0, inp, 2, 3, 4, Pads{1, 1, 1, 1});       // 6 INP, pads free
  b.load(MemType::kInp, 0, inp, 3, 0, 4, Pads{1, 1, 1, 1});       // empty
  b.load_1d(MemType::kWgt, 0, wgt, 4, kPushNext);                 // 4 WGT
  b.load_1d(MemType::kAcc, 0, acc, 2);                            // 2 ACC
  b.load(MemType::kAcc8Bit, 4, acc8, 1, 3, 3, Pads{0, 0, 2, 0});  // 3 ACC_8BIT
  b.gemm_reset(0, 2, Loops{2, 2, 2, 1});                          // not counted
  b.gemm(0, 2, Loops{2, 3, 3, 0, 0, 1, 0, 1}, kPopPrev);          // 2*3*2 = 12
  b.alu(AluOp::kAdd, 2, 3, Loops{3, 1, 1, 0, 1, 0});              // 3
  b.alu_imm(AluOp::kShr, 2, 0, 1, Loops{2, 2, 2, 1}, kPushNext);  // 4
  b.store(0, out, 2, 3, 6, kPopPrev);                             // 6 OUT
  b.store(0, out, 1, 0, 0, kPushPrev);                            // empty
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  sim::VtaCounters want;
  want.uop_load_nbytes = 3 * 4;
  want.inp_load_nbytes = 6 * inp_elem;
  want.wgt_load_nbytes = 4 * wgt_elem;
  want.acc_load_nbytes = 2 * lanes * 4 + 3 * lanes;
  want.out_store_nbytes = 6 * lanes;
  want.gemm_counter = 12;
  want.alu_counter = 3 + 4;
  want.insn_count = 13;
  EXPECT_EQ(c, want);

  // Counters are per run, not cumulative.
  Program again = b.build();
  EXPECT_EQ(run(again), want);

  const nlohmann::ordered_json j = sim::to_json(c);
  EXPECT_EQ(j.at("gemm_counter"), 12u);
  EXPECT_EQ(j.at("out_store_nbytes"), 6 * lanes);
  EXPECT_EQ(j.at("insn_count"), 13u);
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(CountersTest);

}  // namespace
}  // namespace weft::test
