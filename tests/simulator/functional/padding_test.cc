// Functional model: zero-padded LOADs of every memory type. Each case first fills the target
// buffer with garbage, then loads a padded tile over it, so that the padding zeros and the
// placement of the data (a dense (y0+y+y1) x (x0+x+x1) tile at sram_base) are both observed:
// ACC/ACC_8BIT through STORE and the accumulator, INP/WGT through a GEMM per tile position,
// UOP through the micro-op buffer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hardware/isa/encoding.h"
#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::ElementsAreArray;

class PaddingTest : public FunctionalSimTest {};

struct PadCase {
  const char* name;
  int64_t y_size, x_size;
  Pads pads;
  int64_t rows() const { return pads.y0 + y_size + pads.y1; }
  int64_t cols() const { return pads.x0 + x_size + pads.x1; }
  int64_t elems() const { return rows() * cols(); }
};

// Each pad alone, all four together, and the 4-bit maximum (15). The all-at-maximum tile has
// 31 x 31 elements and is skipped where a buffer is smaller.
const std::vector<PadCase>& pad_cases() {
  static const std::vector<PadCase> cases = {
      {"y_pad_0", 2, 3, Pads{2, 0, 0, 0}},
      {"y_pad_1", 2, 3, Pads{0, 2, 0, 0}},
      {"x_pad_0", 2, 3, Pads{0, 0, 1, 0}},
      {"x_pad_1", 2, 3, Pads{0, 0, 0, 3}},
      {"all four", 3, 2, Pads{1, 2, 3, 1}},
      {"y_pad_0 and x_pad_1 at 15", 1, 1, Pads{15, 0, 0, 15}},
      {"y_pad_1 and x_pad_0 at 15", 1, 1, Pads{0, 15, 15, 0}},
      {"all four at 15", 1, 1, Pads{15, 15, 15, 15}},
  };
  return cases;
}

constexpr int64_t kStrideExtra = 2;  // DRAM rows are x_size + 2 elements apart

TEST_P(PaddingTest, AccLoadPadsWithZeros) {
  uint32_t seed = 100;
  for (const PadCase& pc : pad_cases()) {
    SCOPED_TRACE(pc.name);
    const int64_t n = pc.elems();
    if (n > layout().acc_depth) continue;
    const int64_t lanes = acc_lanes();
    const int64_t stride = pc.x_size + kStrideExtra;
    const std::vector<int32_t> src_values =
        random_int32(pc.y_size * stride * lanes, ++seed, -1000000, 1000000);

    ProgramBuilder b = builder();
    // Garbage with no zero lane, so that every padding zero is visible.
    const int64_t garbage = b.add_int32(random_int32(n * lanes, ++seed, 1, 1 << 30));
    const int64_t src = b.add_int32(src_values);
    const int64_t out = b.alloc(MemType::kOut, n);
    b.load_1d(MemType::kAcc, 0, garbage, n);
    b.load(MemType::kAcc, 0, src, pc.y_size, pc.x_size, stride, pc.pads, kPushNext);
    b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
    b.finish(kPopNext);
    Program p = b.build();
    const sim::VtaCounters c = run(p);

    std::vector<int32_t> expected;
    for (int64_t s : ref_load_sources(pc.y_size, pc.x_size, stride, pc.pads)) {
      for (int64_t k = 0; k < lanes; ++k) expected.push_back(s < 0 ? 0 : src_values[s * lanes + k]);
    }
    EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(expected));
    EXPECT_THAT(p.int8s(MemType::kOut, out, n), ElementsAreArray(narrow8(expected)));
    // Padding is not DRAM traffic.
    EXPECT_EQ(c.acc_load_nbytes, static_cast<uint64_t>((n + pc.y_size * pc.x_size) * lanes * 4));
  }
}

TEST_P(PaddingTest, Acc8BitLoadPadsWithZeros) {
  uint32_t seed = 200;
  for (const PadCase& pc : pad_cases()) {
    SCOPED_TRACE(pc.name);
    const int64_t n = pc.elems();
    if (n > layout().acc_depth) continue;
    const int64_t lanes = acc_lanes();
    const int64_t stride = pc.x_size + kStrideExtra;
    const std::vector<int8_t> src_values = random_int8(pc.y_size * stride * lanes, ++seed);

    ProgramBuilder b = builder();
    const int64_t garbage = b.add_int32(random_int32(n * lanes, ++seed, 1, 1 << 30));
    const int64_t src = b.add_int8(MemType::kAcc8Bit, src_values);
    b.load_1d(MemType::kAcc, 0, garbage, n);
    b.load(MemType::kAcc8Bit, 0, src, pc.y_size, pc.x_size, stride, pc.pads);
    b.finish();
    Program p = b.build();
    run(p);

    std::vector<int32_t> expected;
    for (int64_t s : ref_load_sources(pc.y_size, pc.x_size, stride, pc.pads)) {
      for (int64_t k = 0; k < lanes; ++k) expected.push_back(s < 0 ? 0 : src_values[s * lanes + k]);
    }
    EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(expected));
  }
}

// A padded INP tile is observed by one GEMM micro-op per tile position p with a fixed weight
// element: ACC[p] = INP[p] * W^T, which is zero exactly where INP[p] is padding.
TEST_P(PaddingTest, InpLoadPadsWithZeros) {
  uint32_t seed = 300;
  const int64_t inp_bytes = batch() * block_in(), wgt_bytes = block_out() * block_in();
  for (const PadCase& pc : pad_cases()) {
    SCOPED_TRACE(pc.name);
    const int64_t n = pc.elems();
    if (n > layout().inp_depth || n > layout().acc_depth) continue;
    const int64_t stride = pc.x_size + kStrideExtra;
    const std::vector<int8_t> src_values = random_int8(pc.y_size * stride * inp_bytes, ++seed);
    const std::vector<int8_t> wgt_values = random_int8(wgt_bytes, ++seed);

    ProgramBuilder b = builder();
    const int64_t garbage = b.add_int8(MemType::kInp, random_int8(n * inp_bytes, ++seed));
    const int64_t src = b.add_int8(MemType::kInp, src_values);
    const int64_t wgt = b.add_int8(MemType::kWgt, wgt_values);
    const int64_t uops = b.add_uops({isa::Uop{0, 0, 0}});
    b.load_1d(MemType::kInp, 0, garbage, n);
    b.load(MemType::kInp, 0, src, pc.y_size, pc.x_size, stride, pc.pads);
    b.load_1d(MemType::kWgt, 0, wgt, 1, kPushNext);
    b.load_1d(MemType::kUop, 0, uops, 1);
    b.gemm_reset(0, 1, Loops{n, 1, 1});
    Loops per_position{n, 1, 1, 0, 1, 0, 0, 0};  // dst = src = p, wgt = 0
    b.gemm(0, 1, per_position, kPopPrev);
    b.finish();
    Program p = b.build();
    run(p);

    std::vector<int32_t> expected(static_cast<size_t>(n * acc_lanes()), 0);
    const std::vector<int8_t> zero(static_cast<size_t>(inp_bytes), 0);
    const std::vector<int64_t> sources = ref_load_sources(pc.y_size, pc.x_size, stride, pc.pads);
    for (int64_t pos = 0; pos < n; ++pos) {
      const int64_t s = sources[pos];
      const int8_t* inp = s < 0 ? zero.data() : &src_values[s * inp_bytes];
      ref_gemm_elem(layout(), inp, wgt_values.data(), &expected[pos * acc_lanes()]);
    }
    EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(expected));
  }
}

// Likewise for WGT: ACC[p] = I * WGT[p]^T with a fixed input element.
TEST_P(PaddingTest, WgtLoadPadsWithZeros) {
  uint32_t seed = 400;
  const int64_t inp_bytes = batch() * block_in(), wgt_bytes = block_out() * block_in();
  for (const PadCase& pc : pad_cases()) {
    SCOPED_TRACE(pc.name);
    const int64_t n = pc.elems();
    if (n > layout().wgt_depth || n > layout().acc_depth) continue;
    const int64_t stride = pc.x_size + kStrideExtra;
    const std::vector<int8_t> src_values = random_int8(pc.y_size * stride * wgt_bytes, ++seed);
    const std::vector<int8_t> inp_values = random_int8(inp_bytes, ++seed);

    ProgramBuilder b = builder();
    const int64_t garbage = b.add_int8(MemType::kWgt, random_int8(n * wgt_bytes, ++seed));
    const int64_t src = b.add_int8(MemType::kWgt, src_values);
    const int64_t inp = b.add_int8(MemType::kInp, inp_values);
    const int64_t uops = b.add_uops({isa::Uop{0, 0, 0}});
    b.load_1d(MemType::kWgt, 0, garbage, n);
    b.load(MemType::kWgt, 0, src, pc.y_size, pc.x_size, stride, pc.pads);
    b.load_1d(MemType::kInp, 0, inp, 1, kPushNext);
    b.load_1d(MemType::kUop, 0, uops, 1);
    b.gemm_reset(0, 1, Loops{n, 1, 1});
    Loops per_position{n, 1, 1, 0, 0, 0, 1, 0};  // dst = wgt = p, src = 0
    b.gemm(0, 1, per_position, kPopPrev);
    b.finish();
    Program p = b.build();
    run(p);

    std::vector<int32_t> expected(static_cast<size_t>(n * acc_lanes()), 0);
    const std::vector<int8_t> zero(static_cast<size_t>(wgt_bytes), 0);
    const std::vector<int64_t> sources = ref_load_sources(pc.y_size, pc.x_size, stride, pc.pads);
    for (int64_t pos = 0; pos < n; ++pos) {
      const int64_t s = sources[pos];
      const int8_t* wgt = s < 0 ? zero.data() : &src_values[s * wgt_bytes];
      ref_gemm_elem(layout(), inp_values.data(), wgt, &expected[pos * acc_lanes()]);
    }
    EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(expected));
  }
}

TEST_P(PaddingTest, UopLoadPadsWithZeros) {
  for (const PadCase& pc : pad_cases()) {
    SCOPED_TRACE(pc.name);
    const int64_t n = pc.elems();
    if (n > layout().uop_depth) continue;
    const int64_t stride = pc.x_size + kStrideExtra;

    ProgramBuilder b = builder();
    // Garbage micro-ops: raw words with no zero among them.
    const int64_t garbage = b.alloc(MemType::kUop, n);
    b.fill(MemType::kUop, garbage, n, 0x3C);
    const int64_t src = b.alloc(MemType::kUop, pc.y_size * stride);
    std::vector<isa::Uop> src_uops;
    for (int64_t i = 0; i < pc.y_size * stride; ++i)
      src_uops.push_back(isa::Uop{i + 1, i + 2, i + 3});
    b.put_uops(src, src_uops);
    b.load_1d(MemType::kUop, 0, garbage, n);
    b.load(MemType::kUop, 0, src, pc.y_size, pc.x_size, stride, pc.pads);
    b.finish();
    Program p = b.build();
    const sim::VtaCounters c = run(p);

    std::vector<uint32_t> expected;
    for (int64_t s : ref_load_sources(pc.y_size, pc.x_size, stride, pc.pads)) {
      uint32_t word = 0;
      if (s >= 0) isa::encode_uop(layout(), src_uops[s], reinterpret_cast<uint8_t*>(&word), "uop");
      expected.push_back(word);
    }
    const std::vector<uint32_t>& buf = sim_.buffers().uop;
    EXPECT_THAT(std::vector<uint32_t>(buf.begin(), buf.begin() + n), ElementsAreArray(expected));
    EXPECT_EQ(c.uop_load_nbytes, static_cast<uint64_t>((n + pc.y_size * pc.x_size) * 4));
  }
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(PaddingTest);

}  // namespace
}  // namespace weft::test
