// Functional model: GEMM semantics. One micro-op without loops, accumulation onto loaded
// accumulators, one and two loop levels (dst/src/wgt factors), micro-op sub-ranges,
// reset_reg, int32 wrap-around and empty ranges, each checked against a reference matmul
// both in the accumulator (all 32 bits) and through STORE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"

namespace weft::test {
namespace {

using isa::MemType;
using isa::Uop;
using ::testing::ElementsAreArray;

class GemmTest : public FunctionalSimTest {
 protected:
  // A (mt*BATCH) x (kt*BLOCK_IN) input and an (nt*BLOCK_OUT) x (kt*BLOCK_IN) weight matrix.
  Int8Matrix inputs(int64_t mt, int64_t kt, uint32_t seed) const {
    return random_matrix(mt * batch(), kt * block_in(), seed);
  }
  Int8Matrix weights(int64_t nt, int64_t kt, uint32_t seed) const {
    return random_matrix(nt * block_out(), kt * block_in(), seed);
  }
};

TEST_P(GemmTest, OneMicroOpWithoutLoops) {
  const Int8Matrix a = inputs(1, 1, 1), w = weights(1, 1, 2);
  ProgramBuilder b = builder();
  const int64_t inp = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
  const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
  const int64_t uops = b.add_uops({Uop{7, 3, 5}});
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kInp, 3, inp, 1);
  b.load_1d(MemType::kWgt, 5, wgt, 1, kPushNext);
  b.load_1d(MemType::kUop, 0, uops, 1);
  b.gemm_reset(0, 1);
  b.gemm(0, 1, Loops{}, kPopPrev | kPushNext);
  b.store(7, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  const Int32Matrix expected = ref_matmul(a, w);
  EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(7, 1), 1, 1), expected);
  EXPECT_EQ(from_out_tiles(layout(), p.int8s(MemType::kOut, out, 1), 1, 1), narrow8(expected));
  EXPECT_EQ(c.gemm_counter, 1u);  // the reset does not count
}

TEST_P(GemmTest, AccumulatesOntoLoadedAccumulator) {
  const Int8Matrix a = inputs(1, 1, 3), w = weights(1, 1, 4);
  Int32Matrix bias(batch(), block_out());
  bias.data = random_int32(acc_lanes(), 5, -(1 << 20), 1 << 20);
  ProgramBuilder b = builder();
  const int64_t inp = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
  const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
  const int64_t acc = b.add_int32(to_acc_tiles(layout(), bias));
  const int64_t uops = b.add_uops({Uop{2, 0, 1}});
  b.load_1d(MemType::kInp, 0, inp, 1);
  b.load_1d(MemType::kWgt, 1, wgt, 1, kPushNext);
  b.load_1d(MemType::kUop, 0, uops, 1);
  b.load_1d(MemType::kAcc, 2, acc, 1);
  b.gemm(0, 1, Loops{}, kPopPrev);
  b.gemm(0, 1);  // twice: the product is added again
  b.finish();
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  const Int32Matrix product = ref_matmul(a, w);
  Int32Matrix expected = bias;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    expected.data[i] = wrap32(int64_t{bias.data[i]} + 2 * int64_t{product.data[i]});
  }
  EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(2, 1), 1, 1), expected);
  EXPECT_EQ(c.gemm_counter, 2u);
}

// C (mt x 1 tiles) = A (mt x kt) * W^T (1 x kt): the kt micro-ops reduce over k and a single
// loop level walks the rows, once as the outer and once as the inner loop.
TEST_P(GemmTest, OneLoopLevel) {
  const int64_t mt = 3, kt = 2;
  const Int8Matrix a = inputs(mt, kt, 6), w = weights(1, kt, 7);
  const Int32Matrix expected = ref_matmul(a, w);
  for (bool outer : {true, false}) {
    SCOPED_TRACE(outer ? "iter_out" : "iter_in");
    ProgramBuilder b = builder();
    const int64_t inp = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
    const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
    std::vector<Uop> uops;
    for (int64_t k = 0; k < kt; ++k) uops.push_back(Uop{0, k, k});
    const int64_t uop = b.add_uops(uops);
    const int64_t out = b.alloc(MemType::kOut, mt);
    b.load_1d(MemType::kInp, 0, inp, mt * kt);
    b.load_1d(MemType::kWgt, 0, wgt, kt, kPushNext);
    b.load_1d(MemType::kUop, 0, uop, kt);
    const Loops rows = outer ? Loops{mt, 1, 1, 0, kt, 0, 0, 0} : Loops{1, mt, 0, 1, 0, kt, 0, 0};
    b.gemm_reset(0, 1, rows);
    b.gemm(0, kt, rows, kPopPrev | kPushNext);
    b.store(0, out, 1, mt, mt, kPopPrev | kPushPrev);
    b.finish(kPopNext);
    Program p = b.build();
    const sim::VtaCounters c = run(p);

    EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(0, mt), mt, 1), expected);
    EXPECT_EQ(from_out_tiles(layout(), p.int8s(MemType::kOut, out, mt), mt, 1), narrow8(expected));
    EXPECT_EQ(c.gemm_counter, static_cast<uint64_t>(mt * kt));
  }
}

// C (mt x nt) = A (mt x kt) * W^T (nt x kt) with both loop levels: i walks rows of A (dst and
// src), j walks rows of W (dst and wgt), the micro-ops walk k. The micro-ops live at
// [2, 2 + kt) behind two decoys that must not run.
TEST_P(GemmTest, TwoLoopLevels) {
  const int64_t mt = 2, nt = 3, kt = 2, first = 2;
  const Int8Matrix a = inputs(mt, kt, 8), w = weights(nt, kt, 9);
  ProgramBuilder b = builder();
  const int64_t inp = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
  const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
  std::vector<Uop> uops = {Uop{0, 1, 1}, Uop{1, 0, 0}};  // decoys
  for (int64_t k = 0; k < kt; ++k) uops.push_back(Uop{0, k, k});
  const int64_t uop = b.add_uops(uops);
  const int64_t out = b.alloc(MemType::kOut, mt * nt);
  b.load_1d(MemType::kInp, 0, inp, mt * kt);
  b.load_1d(MemType::kWgt, 0, wgt, nt * kt, kPushNext);
  b.load_1d(MemType::kUop, 0, uop, first + kt);
  const Loops loops{mt, nt, /*dst*/ nt, 1, /*src*/ kt, 0, /*wgt*/ 0, kt};
  b.gemm_reset(first, first + 1, loops);
  b.gemm(first, first + kt, loops, kPopPrev | kPushNext);
  b.store(0, out, 1, mt * nt, mt * nt, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  const Int32Matrix expected = ref_matmul(a, w);
  EXPECT_EQ(from_acc_tiles(layout(), acc_buffer(0, mt * nt), mt, nt), expected);
  EXPECT_EQ(from_out_tiles(layout(), p.int8s(MemType::kOut, out, mt * nt), mt, nt),
            narrow8(expected));
  EXPECT_EQ(c.gemm_counter, static_cast<uint64_t>(mt * nt * kt));
}

TEST_P(GemmTest, ResetZeroesExactlyTheAddressedTiles) {
  const int64_t n = 6;
  const std::vector<int32_t> garbage = random_int32(n * acc_lanes(), 10, 1, 1 << 30);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(garbage);
  const int64_t uop = b.add_uops({Uop{1, 0, 0}});
  b.load_1d(MemType::kAcc, 0, acc, n);
  b.load_1d(MemType::kUop, 0, uop, 1);
  // dst = 1 + 3i for i < 2: tiles 1 and 4.
  b.gemm_reset(0, 1, Loops{2, 1, 3, 0});
  b.finish();
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  std::vector<int32_t> expected = garbage;
  for (int64_t tile : {1, 4}) {
    for (int64_t k = 0; k < acc_lanes(); ++k) expected[tile * acc_lanes() + k] = 0;
  }
  EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(expected));
  EXPECT_EQ(c.gemm_counter, 0u);
}

TEST_P(GemmTest, AccumulationWrapsAt32Bits) {
  // All inputs and weights -128: every lane adds 16384 * BLOCK_IN onto INT32_MAX - 100.
  Int8Matrix a(batch(), block_in()), w(block_out(), block_in());
  a.data.assign(a.data.size(), -128);
  w.data.assign(w.data.size(), -128);
  Int32Matrix start(batch(), block_out());
  start.data.assign(start.data.size(), std::numeric_limits<int32_t>::max() - 100);
  ProgramBuilder b = builder();
  const int64_t inp = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
  const int64_t wgt = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
  const int64_t acc = b.add_int32(to_acc_tiles(layout(), start));
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kInp, 0, inp, 1);
  b.load_1d(MemType::kWgt, 0, wgt, 1, kPushNext);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.load_1d(MemType::kAcc, 0, acc, 1);
  b.gemm(0, 1, Loops{}, kPopPrev | kPushNext);
  b.store(0, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  run(p);

  const int32_t lane =
      wrap32(int64_t{std::numeric_limits<int32_t>::max()} - 100 + int64_t{16384} * block_in());
  EXPECT_LT(lane, 0);  // it wrapped
  EXPECT_THAT(acc_buffer(0, 1),
              ElementsAreArray(std::vector<int32_t>(static_cast<size_t>(acc_lanes()), lane)));
  EXPECT_THAT(
      p.int8s(MemType::kOut, out, 1),
      ElementsAreArray(std::vector<int8_t>(static_cast<size_t>(acc_lanes()), narrow8(lane))));
}

TEST_P(GemmTest, EmptyRangesDoNothing) {
  const std::vector<int32_t> garbage = random_int32(acc_lanes(), 11, 1, 1 << 30);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(garbage);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  b.load_1d(MemType::kAcc, 0, acc, 1);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.gemm_reset(1, 1);               // uop_bgn == uop_end
  b.gemm_reset(0, 1, Loops{0, 1});  // iter_out 0
  b.gemm_reset(0, 1, Loops{1, 0});  // iter_in 0
  b.gemm(0, 0);
  b.finish();
  Program p = b.build();
  const sim::VtaCounters c = run(p);
  EXPECT_THAT(acc_buffer(0, 1), ElementsAreArray(garbage));
  EXPECT_EQ(c.gemm_counter, 0u);
  EXPECT_EQ(c.insn_count, 7u);
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(GemmTest);

}  // namespace
}  // namespace weft::test
