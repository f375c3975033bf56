// Unit tests of the instruction-stream builder, before/after style: a short sequence of
// builder calls and the listing it must give. Covers where pushes and pops land (the last
// instruction, no-ops, the next instruction), the micro-op kernel cache (DRAM area and
// on-chip residency), synchronize(), build() (relocation and encoding) and the user errors.
#include "runtime/stream/stream_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"

namespace weft::rt {
namespace {

using isa::AluOp;
using isa::MemType;
using isa::Module;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr Module kLoad = Module::kLoad;
constexpr Module kCompute = Module::kCompute;
constexpr Module kStore = Module::kStore;

// A one-micro-op kernel over `n` accumulator elements from `dst`.
UopKernel row_kernel(int64_t dst, int64_t n) {
  UopKernel k;
  k.uops = {isa::Uop{dst, 0, 0}};
  k.iter_out = n;
  k.dst_factor_out = 1;
  return k;
}

// A kernel of `n` distinct micro-ops.
UopKernel wide_kernel(int64_t n, int64_t tag = 0) {
  UopKernel k;
  for (int64_t i = 0; i < n; ++i) k.uops.push_back(isa::Uop{tag, i % 16, 0});
  return k;
}

// The message of the UserError `f` throws ("" when it throws none).
template <typename F>
std::string user_error(F f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UserError";
  return "";
}

class StreamBuilderTest : public ::testing::Test {
 protected:
  StreamBuilderTest() : l_(isa::layout_for("tiny")), b_(l_) {}
  const isa::Layout& l_;
  StreamBuilder b_;
};

TEST_F(StreamBuilderTest, RoutesLoadsByMemoryType) {
  b_.load_2d(MemType::kInp, 0, 10, 1, 2, 2);
  b_.load_2d(MemType::kAcc, 4, 20, 2, 3, 5, Pads{1, 0, 0, 1});
  EXPECT_EQ(b_.insns()[0].op(), isa::Opcode::kLoad);
  EXPECT_EQ(isa::route(b_.insns()[0]), kLoad);
  EXPECT_EQ(isa::route(b_.insns()[1]), kCompute);
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP sram_base=0 dram_base=10 y_size=1 x_size=2 x_stride=2\n"
            "1: LOAD ACC sram_base=4 dram_base=20 y_size=2 x_size=3 x_stride=5 y_pad_0=1 "
            "x_pad_1=1\n");
}

TEST_F(StreamBuilderTest, PushGoesOnTheLastInstructionOfItsModule) {
  b_.load_2d(MemType::kInp, 0, 10, 1, 2, 2);
  b_.load_2d(MemType::kAcc, 0, 20, 1, 1, 1);  // compute: does not take the load's push
  b_.dep_push(kLoad, kCompute);
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP push_next_dep sram_base=0 dram_base=10 y_size=1 x_size=2 x_stride=2\n"
            "1: LOAD ACC sram_base=0 dram_base=20 y_size=1 x_size=1 x_stride=1\n");
}

TEST_F(StreamBuilderTest, PushOnANoOpWhenTheLastInstructionAlreadyPushesThatWay) {
  b_.load_2d(MemType::kInp, 0, 10, 1, 2, 2);
  b_.dep_push(kLoad, kCompute);
  b_.dep_push(kLoad, kCompute);
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP push_next_dep sram_base=0 dram_base=10 y_size=1 x_size=2 x_stride=2\n"
            "1: LOAD INP push_next_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0\n");
}

TEST_F(StreamBuilderTest, PushesOfTheTwoDirectionsShareAnInstruction) {
  b_.gemm(row_kernel(0, 4));
  b_.dep_push(kCompute, kLoad);
  b_.dep_push(kCompute, kStore);
  EXPECT_EQ(b_.listing(),
            "0: LOAD UOP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1\n"
            "1: GEMM push_prev_dep push_next_dep uop_bgn=0 uop_end=1 iter_out=4 iter_in=1 "
            "dst_factor_out=1\n");
}

TEST_F(StreamBuilderTest, PushFromAModuleWithNothingYetIsANoOp) {
  b_.dep_push(kCompute, kLoad);
  b_.dep_push(kStore, kCompute);
  b_.dep_push(kStore, kCompute);
  EXPECT_EQ(b_.listing(),
            "0: GEMM push_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\n"
            "1: STORE OUT push_prev_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0\n"
            "2: STORE OUT push_prev_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0\n");
}

TEST_F(StreamBuilderTest, PopGoesOnTheNextInstructionOfItsModule) {
  b_.dep_pop(kLoad, kCompute);
  b_.load_2d(MemType::kInp, 0, 10, 1, 2, 2);  // load module: not the one that pops
  b_.load_2d(MemType::kAcc, 0, 20, 1, 1, 1);
  b_.load_2d(MemType::kAcc, 1, 21, 1, 1, 1);
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP sram_base=0 dram_base=10 y_size=1 x_size=2 x_stride=2\n"
            "1: LOAD ACC pop_prev_dep sram_base=0 dram_base=20 y_size=1 x_size=1 x_stride=1\n"
            "2: LOAD ACC sram_base=1 dram_base=21 y_size=1 x_size=1 x_stride=1\n");
}

TEST_F(StreamBuilderTest, ASecondPendingPopOfOneDirectionPutsTheFirstOnANoOp) {
  b_.dep_pop(kCompute, kStore);
  b_.dep_pop(kCompute, kStore);
  b_.store_2d(0, 30, 1, 2, 2);
  EXPECT_EQ(b_.listing(),
            "0: STORE OUT pop_prev_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0\n"
            "1: STORE OUT pop_prev_dep sram_base=0 dram_base=30 y_size=1 x_size=2 x_stride=2\n");
}

TEST_F(StreamBuilderTest, PendingPopsOfBothDirectionsGoOnOneInstruction) {
  b_.dep_pop(kLoad, kCompute);
  b_.dep_pop(kStore, kCompute);
  b_.alu(AluOp::kAdd, row_kernel(0, 2), true, -3);
  // The micro-op load is the next compute instruction: it waits, and so does the ALU after it.
  EXPECT_EQ(b_.listing(),
            "0: LOAD UOP pop_prev_dep pop_next_dep sram_base=0 dram_base=0 y_size=1 x_size=1 "
            "x_stride=1\n"
            "1: ALU ADD uop_bgn=0 uop_end=1 iter_out=2 iter_in=1 dst_factor_out=1 use_imm "
            "imm=-3\n");
}

TEST_F(StreamBuilderTest, PushAfterAPendingPopStillMarksTheLastInstruction) {
  b_.load_2d(MemType::kInp, 0, 10, 1, 2, 2);
  b_.dep_pop(kCompute, kLoad);
  b_.dep_push(kLoad, kCompute);
  b_.load_2d(MemType::kWgt, 0, 11, 1, 1, 1);
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP push_next_dep sram_base=0 dram_base=10 y_size=1 x_size=2 x_stride=2\n"
            "1: LOAD WGT pop_next_dep sram_base=0 dram_base=11 y_size=1 x_size=1 x_stride=1\n");
}

TEST_F(StreamBuilderTest, AnIdenticalKernelIsLoadedOnce) {
  UopKernel k = row_kernel(0, 4);
  b_.gemm(k);
  k.reset = true;  // same micro-ops, other loops and flags: still the same cached kernel
  k.iter_out = 2;
  b_.gemm(k);
  b_.alu(AluOp::kMax, row_kernel(0, 4), true, 0);
  EXPECT_EQ(b_.listing(),
            "0: LOAD UOP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1\n"
            "1: GEMM uop_bgn=0 uop_end=1 iter_out=4 iter_in=1 dst_factor_out=1\n"
            "2: GEMM reset_reg uop_bgn=0 uop_end=1 iter_out=2 iter_in=1 dst_factor_out=1\n"
            "3: ALU MAX uop_bgn=0 uop_end=1 iter_out=4 iter_in=1 dst_factor_out=1 use_imm "
            "imm=0\n");
  EXPECT_EQ(b_.num_uop_loads(), 1);
  EXPECT_EQ(b_.num_kernels(), 1u);
  EXPECT_EQ(b_.uop_area_bytes(), 4u);
}

TEST_F(StreamBuilderTest, DifferentKernelsAreStackedInTheAreaAndTheBuffer) {
  b_.gemm(wide_kernel(3, 0));
  b_.gemm(wide_kernel(2, 1));
  b_.gemm(wide_kernel(3, 0));
  EXPECT_EQ(b_.listing(),
            "0: LOAD UOP sram_base=0 dram_base=0 y_size=1 x_size=3 x_stride=3\n"
            "1: GEMM uop_bgn=0 uop_end=3 iter_out=1 iter_in=1\n"
            "2: LOAD UOP sram_base=3 dram_base=3 y_size=1 x_size=2 x_stride=2\n"
            "3: GEMM uop_bgn=3 uop_end=5 iter_out=1 iter_in=1\n"
            "4: GEMM uop_bgn=0 uop_end=3 iter_out=1 iter_in=1\n");
  EXPECT_EQ(b_.num_kernels(), 2u);
  EXPECT_EQ(b_.uop_area_bytes(), 20u);
}

TEST_F(StreamBuilderTest, AFullMicroOpBufferStartsAgainAtZeroAndForgetsWhatWasResident) {
  ASSERT_EQ(l_.uop_depth, 1024);
  b_.gemm(wide_kernel(600, 0));  // [0, 600)
  b_.gemm(wide_kernel(300, 1));  // [600, 900)
  b_.gemm(wide_kernel(200, 2));  // does not fit: [0, 200), the others are forgotten
  b_.gemm(wide_kernel(300, 1));  // reloaded at 200
  b_.gemm(wide_kernel(200, 2));  // still resident
  EXPECT_EQ(b_.listing(),
            "0: LOAD UOP sram_base=0 dram_base=0 y_size=1 x_size=600 x_stride=600\n"
            "1: GEMM uop_bgn=0 uop_end=600 iter_out=1 iter_in=1\n"
            "2: LOAD UOP sram_base=600 dram_base=600 y_size=1 x_size=300 x_stride=300\n"
            "3: GEMM uop_bgn=600 uop_end=900 iter_out=1 iter_in=1\n"
            "4: LOAD UOP sram_base=0 dram_base=900 y_size=1 x_size=200 x_stride=200\n"
            "5: GEMM uop_bgn=0 uop_end=200 iter_out=1 iter_in=1\n"
            "6: LOAD UOP sram_base=200 dram_base=600 y_size=1 x_size=300 x_stride=300\n"
            "7: GEMM uop_bgn=200 uop_end=500 iter_out=1 iter_in=1\n"
            "8: GEMM uop_bgn=0 uop_end=200 iter_out=1 iter_in=1\n");
  EXPECT_EQ(b_.num_uop_loads(), 4);
  EXPECT_EQ(b_.num_kernels(), 3u);
}

TEST_F(StreamBuilderTest, ALoadIntoTheMicroOpBufferForgetsResidentKernels) {
  b_.gemm(wide_kernel(2, 0));
  b_.load_2d(MemType::kUop, 0, 0, 1, 1, 1);
  b_.gemm(wide_kernel(2, 0));
  EXPECT_EQ(b_.num_uop_loads(), 2);
  EXPECT_EQ(b_.num_kernels(), 1u);
}

TEST_F(StreamBuilderTest, SynchronizeMakesFinishWaitForLoadAndStore) {
  b_.load_2d(MemType::kInp, 0, 10, 1, 1, 1);
  b_.dep_push(kLoad, kCompute);
  b_.dep_pop(kLoad, kCompute);
  b_.gemm(row_kernel(0, 1));
  b_.dep_push(kCompute, kStore);
  b_.dep_pop(kCompute, kStore);
  b_.store_2d(0, 40, 1, 1, 1);
  b_.synchronize();
  EXPECT_TRUE(b_.synchronized());
  EXPECT_EQ(b_.listing(),
            "0: LOAD INP push_next_dep sram_base=0 dram_base=10 y_size=1 x_size=1 x_stride=1\n"
            "1: LOAD UOP pop_prev_dep sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1\n"
            "2: GEMM push_next_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 dst_factor_out=1\n"
            "3: STORE OUT pop_prev_dep push_prev_dep sram_base=0 dram_base=40 y_size=1 x_size=1 "
            "x_stride=1\n"
            "4: LOAD INP push_next_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0\n"
            "5: FINISH pop_prev_dep pop_next_dep\n");
}

TEST_F(StreamBuilderTest, SynchronizeFlushesPendingPopsWithNoOps) {
  b_.dep_push(kCompute, kLoad);
  b_.dep_pop(kCompute, kLoad);
  b_.dep_pop(kLoad, kCompute);  // nothing pushes it: the verifier will object, not synchronize
  b_.synchronize();
  EXPECT_EQ(b_.listing(),
            "0: GEMM push_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\n"
            "1: LOAD INP pop_next_dep push_next_dep sram_base=0 dram_base=0 y_size=0 x_size=0 "
            "x_stride=0\n"
            "2: GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\n"
            "3: FINISH pop_prev_dep\n");
}

TEST_F(StreamBuilderTest, AnEmptyStreamIsJustFinish) {
  b_.synchronize();
  EXPECT_EQ(b_.listing(), "0: FINISH\n");
  const Program p = b_.build(0, 16);
  EXPECT_EQ(p.insn_count, 1u);
  EXPECT_EQ(p.insn_bytes.size(), 16u);
  EXPECT_TRUE(p.uop_bytes.empty());
}

TEST_F(StreamBuilderTest, BuildRelocatesKernelLoadsAndEncodesTheArea) {
  b_.gemm(wide_kernel(2, 5));
  b_.gemm(row_kernel(7, 3));
  b_.load_2d(MemType::kUop, 8, 100, 1, 1, 1);  // the caller's own: not relocated
  b_.synchronize();
  const Program p = b_.build(256, 1024);
  ASSERT_EQ(p.insn_count, 6u);
  ASSERT_EQ(p.insns.size(), 6u);
  EXPECT_EQ(p.insns[0].dram_base, 256);      // 1024 / 4 + 0
  EXPECT_EQ(p.insns[2].dram_base, 256 + 2);  // the second kernel
  EXPECT_EQ(p.insns[4].dram_base, 100);
  EXPECT_EQ(b_.insns()[0].dram_base, 0);  // the builder keeps area-relative addresses
  EXPECT_EQ(isa::decode_program(l_, p.insn_bytes, "p"), p.insns);
  ASSERT_EQ(p.uop_bytes.size(), 12u);
  EXPECT_EQ(isa::decode_uop(l_, p.uop_bytes.data()), (isa::Uop{5, 0, 0}));
  EXPECT_EQ(isa::decode_uop(l_, p.uop_bytes.data() + 4), (isa::Uop{5, 1, 0}));
  EXPECT_EQ(isa::decode_uop(l_, p.uop_bytes.data() + 8), (isa::Uop{7, 0, 0}));
  EXPECT_TRUE(p.tokens.ok());

  std::vector<uint8_t> dram(2048, 0xEE);
  p.place(dram);
  EXPECT_TRUE(std::equal(p.insn_bytes.begin(), p.insn_bytes.end(), dram.begin() + 256));
  EXPECT_TRUE(std::equal(p.uop_bytes.begin(), p.uop_bytes.end(), dram.begin() + 1024));
  std::vector<uint8_t> small(1030);
  EXPECT_THAT(user_error([&] { p.place(small); }), HasSubstr("1036"));
}

TEST_F(StreamBuilderTest, DependenciesOnlyBetweenNeighbours) {
  EXPECT_THAT(user_error([&] { b_.dep_push(kLoad, kStore); }),
              AllOf(HasSubstr("dep_push(load, store)"), HasSubstr("neighbouring")));
  EXPECT_THAT(user_error([&] { b_.dep_pop(kStore, kLoad); }), HasSubstr("dep_pop(store, load)"));
  EXPECT_THAT(user_error([&] { b_.dep_push(kCompute, kCompute); }),
              HasSubstr("dep_push(compute, compute)"));
  EXPECT_TRUE(b_.insns().empty());
}

TEST_F(StreamBuilderTest, FieldsThatDoNotFitNameTheField) {
  EXPECT_THAT(user_error([&] { b_.load_2d(MemType::kInp, 0, 0, 70000, 1, 1); }),
              AllOf(HasSubstr("load_2d"), HasSubstr("'y_size' = 70000"), HasSubstr("16 bits")));
  EXPECT_THAT(user_error([&] { b_.load_2d(MemType::kWgt, 0, -1, 1, 1, 1); }),
              HasSubstr("'dram_base' = -1"));
  EXPECT_THAT(user_error([&] { b_.store_2d(0, int64_t{1} << 33, 1, 1, 1); }),
              AllOf(HasSubstr("store_2d"), HasSubstr("'dram_base'")));
  UopKernel k = row_kernel(0, 1);
  k.dst_factor_out = 1 << 12;
  EXPECT_THAT(user_error([&] { b_.gemm(k); }), HasSubstr("'dst_factor_out'"));
  EXPECT_THAT(user_error([&] { b_.alu(AluOp::kAdd, row_kernel(0, 1), true, 40000); }),
              HasSubstr("'imm' = 40000"));
  UopKernel bad_uop;
  bad_uop.uops = {isa::Uop{0, 1 << 12, 0}};
  EXPECT_THAT(user_error([&] { b_.gemm(bad_uop); }),
              AllOf(HasSubstr("kernel micro-op 0"), HasSubstr("'src'")));
  EXPECT_TRUE(b_.insns().empty());  // nothing was emitted by a failed call
  EXPECT_EQ(b_.num_kernels(), 0u);
}

TEST_F(StreamBuilderTest, TilesAndKernelsMustFitTheirBuffers) {
  EXPECT_THAT(user_error([&] { b_.load_2d(MemType::kInp, 250, 0, 2, 4, 4); }),
              AllOf(HasSubstr("2x4 tile"), HasSubstr("INP buffer depth 256")));
  EXPECT_THAT(user_error([&] { b_.load_2d(MemType::kAcc8Bit, 0, 0, 16, 17, 17); }),
              HasSubstr("ACC buffer depth 256"));
  EXPECT_THAT(user_error([&] { b_.store_2d(255, 0, 1, 2, 2); }), HasSubstr("ACC buffer depth 256"));
  EXPECT_THAT(user_error([&] { b_.load_2d(MemType::kOut, 0, 0, 1, 1, 1); }),
              HasSubstr("cannot target OUT"));
  EXPECT_THAT(user_error([&] { b_.gemm(wide_kernel(1025)); }),
              AllOf(HasSubstr("1025 micro-ops"), HasSubstr("1024")));
  EXPECT_THAT(user_error([&] { b_.gemm(UopKernel{}); }), HasSubstr("no micro-ops"));
  EXPECT_THAT(user_error([&] { b_.alu(AluOp::kMin, row_kernel(200, 57)); }),
              AllOf(HasSubstr("ACC index 256"), HasSubstr("depth 256")));
  UopKernel g;
  g.uops = {isa::Uop{0, 0, 250}};
  g.iter_in = 3;
  g.wgt_factor_in = 3;
  EXPECT_THAT(user_error([&] { b_.gemm(g); }), HasSubstr("WGT index 256"));
  g.reset = true;  // a reset reads neither INP nor WGT
  b_.gemm(g);
  UopKernel r = row_kernel(0, 1);
  r.reset = true;
  EXPECT_THAT(user_error([&] { b_.alu(AluOp::kAdd, r); }), HasSubstr("GEMM kernels only"));
  UopKernel z = row_kernel(0, 1);
  z.iter_in = 0;
  EXPECT_THAT(user_error([&] { b_.gemm(z); }), HasSubstr("at least 1"));
}

TEST_F(StreamBuilderTest, NothingAfterSynchronize) {
  b_.synchronize();
  EXPECT_THAT(user_error([&] { b_.gemm(row_kernel(0, 1)); }),
              AllOf(HasSubstr("gemm"), HasSubstr("already synchronized")));
  EXPECT_THAT(user_error([&] { b_.dep_push(kLoad, kCompute); }), HasSubstr("dep_push"));
  EXPECT_THAT(user_error([&] { b_.synchronize(); }), HasSubstr("synchronize"));
  EXPECT_EQ(b_.insns().size(), 1u);
}

TEST_F(StreamBuilderTest, BuildChecksOffsetsAndTokens) {
  EXPECT_THAT(user_error([&] { b_.build(0, 0); }), HasSubstr("synchronize() first"));
  b_.gemm(wide_kernel(4));
  b_.synchronize();
  EXPECT_THAT(user_error([&] { b_.build(8, 1024); }), HasSubstr("multiple of the 16-byte"));
  EXPECT_THAT(user_error([&] { b_.build(0, 1026); }), HasSubstr("multiple of the 4-byte"));
  EXPECT_THAT(user_error([&] { b_.build(0, 16); }), HasSubstr("overlap the micro-op area"));
  EXPECT_NO_THROW(b_.build(0, 48));  // 3 instructions end at byte 48
  EXPECT_THAT(user_error([&] { b_.build(0, uint64_t{1} << 34); }),
              AllOf(HasSubstr("LOAD UOP"), HasSubstr("'dram_base'")));

  StreamBuilder broken(l_);
  broken.dep_pop(kLoad, kCompute);  // no load ever pushes it
  broken.synchronize();
  EXPECT_THAT(user_error([&] { broken.build(0, 64); }),
              AllOf(HasSubstr("token check failed"), HasSubstr("load->compute")));
}

}  // namespace
}  // namespace weft::rt

namespace weft::rt {
namespace {

// A requantizing STORE on a configuration without the store_requant option is a named error,
// before anything is emitted.
TEST(StreamBuilderOptions, ARequantizingStoreNeedsTheOption) {
  StreamBuilder b(isa::layout_for("tiny"));
  const std::string e =
      user_error([&] { b.store_2d(0, 0, 1, 1, 1, isa::StoreRequant{true, 4, 0, 127}); });
  EXPECT_THAT(e, AllOf(HasSubstr("store_requant"), HasSubstr("'tiny'")));
}

}  // namespace
}  // namespace weft::rt
