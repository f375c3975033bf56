// Functional model: tensor-ALU semantics. Every operation (MIN, MAX, ADD, SHR, MUL) with
// register and immediate operands over edge values, checked lane by lane against the
// reference and with literal spot checks (sign-extended immediates, shift amounts from the
// low 5 bits read signed, negative amounts shifting left, 32-bit wrap); ALU loop factors;
// and the quantization epilogues relu and shift-and-scale observed through STORE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
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

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

const std::vector<AluOp> kAllOps = {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr,
                                    AluOp::kMul};

const char* op_name(AluOp op) { return isa::alu_op_name(static_cast<int64_t>(op)); }

// Values whose low 5 bits cover shifts 0, ±1, ±2, 5, -7, 15, -16, ... and the int32 extremes.
const std::vector<int32_t> kEdgeValues = {0,   1,    -1,  2,          -2,     5,     -7,
                                          15,  16,   17,  31,         32,     -16,   -17,
                                          127, -128, 300, 0x12345678, kMin32, kMax32};

class AluTest : public FunctionalSimTest {
 protected:
  // Runs `op` with dst lanes `a` and register lanes `b` (or the immediate when use_imm) and
  // returns the dst lanes afterwards. Lanes are padded to whole elements and split into runs
  // that fit the accumulator twice (dst tiles, then src tiles).
  std::vector<int32_t> run_alu(AluOp op, const std::vector<int32_t>& a,
                               const std::vector<int32_t>& b, bool use_imm, int64_t imm) {
    const int64_t lanes = acc_lanes();
    const int64_t max_elems = layout().acc_depth / 2;
    std::vector<int32_t> result;
    for (size_t begin = 0; begin < a.size(); begin += static_cast<size_t>(max_elems * lanes)) {
      const size_t end = std::min(a.size(), begin + static_cast<size_t>(max_elems * lanes));
      const int64_t n = (static_cast<int64_t>(end - begin) + lanes - 1) / lanes;
      std::vector<int32_t> dst(a.begin() + begin, a.begin() + end);
      dst.resize(static_cast<size_t>(n * lanes), 0);
      std::vector<int32_t> src;
      if (!use_imm) src.assign(b.begin() + begin, b.begin() + end);
      src.resize(static_cast<size_t>(n * lanes), 0);

      ProgramBuilder pb = builder();
      const int64_t dst_dram = pb.add_int32(dst);
      const int64_t src_dram = pb.add_int32(src);
      const int64_t uop = pb.add_uops({Uop{0, n, 0}});
      pb.load_1d(MemType::kAcc, 0, dst_dram, n);
      pb.load_1d(MemType::kAcc, n, src_dram, n);
      pb.load_1d(MemType::kUop, 0, uop, 1);
      const Loops each{n, 1, 1, 0, 1, 0};  // dst = i, src = n + i
      if (use_imm) {
        pb.alu_imm(op, imm, 0, 1, each);
      } else {
        pb.alu(op, 0, 1, each);
      }
      pb.finish();
      Program p = pb.build();
      const sim::VtaCounters c = run(p);
      EXPECT_EQ(c.alu_counter, static_cast<uint64_t>(n));
      EXPECT_THAT(acc_buffer(n, n), ElementsAreArray(src)) << "the source must not change";
      const std::vector<int32_t> got = acc_buffer(0, n);
      result.insert(result.end(), got.begin(), got.begin() + (end - begin));
    }
    return result;
  }
  std::vector<int32_t> run_reg(AluOp op, const std::vector<int32_t>& a,
                               const std::vector<int32_t>& b) {
    return run_alu(op, a, b, false, 0);
  }
  std::vector<int32_t> run_imm(AluOp op, int64_t imm, const std::vector<int32_t>& a) {
    return run_alu(op, a, {}, true, imm);
  }
  // One lane's result, for literal spot checks.
  int32_t imm1(AluOp op, int32_t a, int64_t imm) { return run_imm(op, imm, {a})[0]; }
  int32_t reg1(AluOp op, int32_t a, int32_t b) { return run_reg(op, {a}, {b})[0]; }
};

TEST_P(AluTest, EveryOpWithRegisterOperand) {
  std::vector<int32_t> a, b;
  for (int32_t x : kEdgeValues) {
    for (int32_t y : kEdgeValues) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const std::vector<int32_t> ra = random_int32(100, 1, kMin32, kMax32);
  const std::vector<int32_t> rb = random_int32(100, 2, -40, 40);  // small shift amounts too
  a.insert(a.end(), ra.begin(), ra.end());
  b.insert(b.end(), rb.begin(), rb.end());
  for (AluOp op : kAllOps) {
    SCOPED_TRACE(op_name(op));
    std::vector<int32_t> expected;
    for (size_t i = 0; i < a.size(); ++i) expected.push_back(ref_alu(op, a[i], b[i]));
    EXPECT_THAT(run_reg(op, a, b), ElementsAreArray(expected));
  }
}

TEST_P(AluTest, EveryOpWithImmediateOperand) {
  std::vector<int32_t> a = kEdgeValues;
  const std::vector<int32_t> ra = random_int32(44, 3, kMin32, kMax32);
  a.insert(a.end(), ra.begin(), ra.end());
  for (AluOp op : kAllOps) {
    for (int64_t imm : {-32768, -32767, -17, -16, -15, -1, 0, 1, 2, 15, 16, 17, 31, 32, 33, 127,
                        255, 12345, 32767}) {
      SCOPED_TRACE(std::string(op_name(op)) + " imm=" + std::to_string(imm));
      std::vector<int32_t> expected;
      for (int32_t x : a) expected.push_back(ref_alu(op, x, static_cast<int32_t>(imm)));
      EXPECT_THAT(run_imm(op, imm, a), ElementsAreArray(expected));
    }
  }
}

TEST_P(AluTest, MinMaxAreSignedWithSignExtendedImmediates) {
  EXPECT_EQ(imm1(AluOp::kMin, 0, -1), -1);  // a zero-extended imm would be 65535
  EXPECT_EQ(imm1(AluOp::kMin, 0, -32768), -32768);
  EXPECT_EQ(imm1(AluOp::kMax, -40000, -32768), -32768);
  EXPECT_EQ(imm1(AluOp::kMax, 40000, 32767), 40000);
  EXPECT_EQ(imm1(AluOp::kMin, 40000, 32767), 32767);
  EXPECT_EQ(reg1(AluOp::kMin, kMin32, kMax32), kMin32);
  EXPECT_EQ(reg1(AluOp::kMax, -1, 0x7FFFFFFF), 0x7FFFFFFF);
  EXPECT_EQ(reg1(AluOp::kMax, -1, -2), -1);
}

TEST_P(AluTest, AddAndMulWrapAt32Bits) {
  EXPECT_EQ(imm1(AluOp::kAdd, kMax32, 1), kMin32);
  EXPECT_EQ(imm1(AluOp::kAdd, kMin32, -1), kMax32);
  EXPECT_EQ(imm1(AluOp::kAdd, 5, -32768), -32763);
  EXPECT_EQ(reg1(AluOp::kAdd, kMax32, kMax32), -2);
  EXPECT_EQ(imm1(AluOp::kMul, 3, -32768), -98304);
  EXPECT_EQ(imm1(AluOp::kMul, 0x10000, 0x7FFF), 0x7FFF0000);
  EXPECT_EQ(imm1(AluOp::kMul, 0x20000, 0x7FFF), static_cast<int32_t>(0xFFFE0000u));
  EXPECT_EQ(reg1(AluOp::kMul, 0x10000, 0x10000), 0);
  EXPECT_EQ(reg1(AluOp::kMul, kMin32, -1), kMin32);
  EXPECT_EQ(reg1(AluOp::kMul, 0x12345678, 0x100), 0x34567800);
}

TEST_P(AluTest, ShiftAmountIsTheLow5BitsReadSigned) {
  EXPECT_EQ(imm1(AluOp::kShr, 64, 3), 8);
  EXPECT_EQ(imm1(AluOp::kShr, -7, 1), -4);  // arithmetic: rounds toward -infinity
  EXPECT_EQ(imm1(AluOp::kShr, -1, 15), -1);
  EXPECT_EQ(imm1(AluOp::kShr, 0x40000000, 15), 0x8000);
  EXPECT_EQ(imm1(AluOp::kShr, 5, -3), 40);     // negative amount: shift left
  EXPECT_EQ(imm1(AluOp::kShr, 1, 16), 65536);  // 16 = 0b10000 reads as -16
  EXPECT_EQ(imm1(AluOp::kShr, 3, -16), 3 << 16);
  EXPECT_EQ(imm1(AluOp::kShr, 64, 35), 8);       // 35 & 31 = 3
  EXPECT_EQ(imm1(AluOp::kShr, 64, 31), 128);     // 31 reads as -1
  EXPECT_EQ(imm1(AluOp::kShr, 64, -32768), 64);  // low bits 0
  EXPECT_EQ(imm1(AluOp::kShr, 64, 32767), 128);  // low bits 31: -1
  EXPECT_EQ(imm1(AluOp::kShr, 0x00018000, -16), static_cast<int32_t>(0x80000000u));  // wraps
  EXPECT_EQ(reg1(AluOp::kShr, 1024, 0x7FFFFFE2), 256);  // register: low bits 2
  EXPECT_EQ(reg1(AluOp::kShr, 1024, static_cast<int32_t>(0xFFFFFFFEu)), 4096);  // -2
  EXPECT_EQ(reg1(AluOp::kShr, kMin32, 15), -65536);
}

// dst = 3i + j, src = 6 + j: a row of three source tiles added to both rows of a 2 x 3 block;
// the micro-op is the second in the buffer, behind a decoy.
TEST_P(AluTest, LoopFactorsAndMicroOpRange) {
  const int64_t lanes = acc_lanes();
  const std::vector<int32_t> dst = random_int32(6 * lanes, 4, -1000, 1000);
  const std::vector<int32_t> src = random_int32(3 * lanes, 5, -1000, 1000);
  ProgramBuilder b = builder();
  const int64_t dst_dram = b.add_int32(dst);
  const int64_t src_dram = b.add_int32(src);
  const int64_t uop = b.add_uops({Uop{6, 0, 0}, Uop{0, 6, 0}});
  b.load_1d(MemType::kAcc, 0, dst_dram, 6);
  b.load_1d(MemType::kAcc, 6, src_dram, 3);
  b.load_1d(MemType::kUop, 0, uop, 2);
  b.alu(AluOp::kAdd, 1, 2, Loops{2, 3, 3, 1, 0, 1});
  b.finish();
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  std::vector<int32_t> expected = dst;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < lanes; ++k) {
        expected[(3 * i + j) * lanes + k] += src[j * lanes + k];
      }
    }
  }
  EXPECT_THAT(acc_buffer(0, 6), ElementsAreArray(expected));
  EXPECT_THAT(acc_buffer(6, 3), ElementsAreArray(src));
  EXPECT_EQ(c.alu_counter, 6u);
}

TEST_P(AluTest, RegisterOperandMayBeTheDestination) {
  const std::vector<int32_t> v = random_int32(acc_lanes(), 6, -(1 << 28), 1 << 28);
  ProgramBuilder b = builder();
  const int64_t dram = b.add_int32(v);
  const int64_t uop = b.add_uops({Uop{3, 3, 0}});
  b.load_1d(MemType::kAcc, 3, dram, 1);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.alu(AluOp::kAdd, 0, 1);
  b.finish();
  Program p = b.build();
  run(p);
  std::vector<int32_t> expected;
  for (int32_t x : v) expected.push_back(2 * x);
  EXPECT_THAT(acc_buffer(3, 1), ElementsAreArray(expected));
}

// ALU chains as a compiler emits them after a GEMM, observed through STORE.
class AluEpilogueTest : public AluTest {};

TEST_P(AluEpilogueTest, ReluAsMaxZeroThenMin127) {
  const int64_t n = 3;
  std::vector<int32_t> v = {-1, 0, 1, 126, 127, 128, 300, -300, kMin32, kMax32};
  const std::vector<int32_t> fill = random_int32(n * acc_lanes(), 7, -1000, 1000);
  v.insert(v.end(), fill.begin(), fill.begin() + (n * acc_lanes() - v.size()));
  ProgramBuilder b = builder();
  const int64_t dram = b.add_int32(v);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  const int64_t out = b.alloc(MemType::kOut, n);
  b.load_1d(MemType::kAcc, 0, dram, n);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.alu_imm(AluOp::kMax, 0, 0, 1, Loops{n, 1, 1});
  b.alu_imm(AluOp::kMin, 127, 0, 1, Loops{n, 1, 1}, kPushNext);
  b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  std::vector<int8_t> expected;
  for (int32_t x : v) expected.push_back(static_cast<int8_t>(x < 0 ? 0 : (x > 127 ? 127 : x)));
  const std::vector<int8_t> got = p.int8s(MemType::kOut, out, n);
  EXPECT_THAT(std::vector<int8_t>(got.begin(), got.begin() + 10),
              ElementsAreArray({0, 0, 1, 126, 127, 127, 127, 0, 0, 127}));
  EXPECT_THAT(got, ElementsAreArray(expected));
  EXPECT_EQ(c.alu_counter, static_cast<uint64_t>(2 * n));
}

// The quantized convolution epilogue of DESIGN.md §7 with a scale: ((acc >> 8) * 3 + bias)
// clipped to [0, 127]; the bias tiles are a register operand.
TEST_P(AluEpilogueTest, ShiftScaleBiasClip) {
  const int64_t n = 4, lanes = acc_lanes();
  const std::vector<int32_t> acc = random_int32(n * lanes, 8, -(1 << 16), 1 << 16);
  const std::vector<int32_t> bias = random_int32(n * lanes, 9, -200, 200);
  ProgramBuilder b = builder();
  const int64_t acc_dram = b.add_int32(acc);
  const int64_t bias_dram = b.add_int32(bias);
  const int64_t uop = b.add_uops({Uop{0, n, 0}});
  const int64_t out = b.alloc(MemType::kOut, n);
  b.load_1d(MemType::kAcc, 0, acc_dram, n);
  b.load_1d(MemType::kAcc, n, bias_dram, n);
  b.load_1d(MemType::kUop, 0, uop, 1);
  const Loops each{n, 1, 1, 0, 1, 0};
  b.alu_imm(AluOp::kShr, 8, 0, 1, each);
  b.alu_imm(AluOp::kMul, 3, 0, 1, each);
  b.alu(AluOp::kAdd, 0, 1, each);
  b.alu_imm(AluOp::kMax, 0, 0, 1, each);
  b.alu_imm(AluOp::kMin, 127, 0, 1, each, kPushNext);
  b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  run(p);

  std::vector<int8_t> expected;
  for (size_t i = 0; i < acc.size(); ++i) {
    int64_t q = acc[i] >= 0 ? acc[i] / 256 : -((-int64_t{acc[i]} + 255) / 256);  // floor
    q = q * 3 + bias[i];
    expected.push_back(static_cast<int8_t>(std::clamp<int64_t>(q, 0, 127)));
  }
  EXPECT_THAT(p.int8s(MemType::kOut, out, n), ElementsAreArray(expected));
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(AluTest);
WEFT_INSTANTIATE_FOR_ALL_CONFIGS(AluEpilogueTest);

}  // namespace
}  // namespace weft::test
