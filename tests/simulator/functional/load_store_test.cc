// Functional model: LOAD and STORE without padding. Round trips through the accumulator
// (ACC load, STORE OUT narrowing to the low 8 bits), ACC_8BIT sign extension, 2-D strided
// loads, strided stores that leave the gaps untouched, and x_size == 0 as a no-op.
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
using ::testing::ElementsAreArray;

class LoadStoreTest : public FunctionalSimTest {};

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

TEST_P(LoadStoreTest, AccThroughStoreKeepsTheLow8Bits) {
  // Interesting values first, then random fill up to two whole elements.
  std::vector<int32_t> values = {300, -1,  127,        128,    -128,   -129,
                                 255, 256, 0x12345678, kMin32, kMax32, 0};
  const int64_t n = 2 + static_cast<int64_t>(values.size()) / acc_lanes();
  const std::vector<int32_t> fill = random_int32(n * acc_lanes(), 7, kMin32, kMax32);
  values.insert(values.end(), fill.begin(), fill.begin() + (n * acc_lanes() - values.size()));

  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(values);
  const int64_t out = b.alloc(MemType::kOut, n);
  b.load_1d(MemType::kAcc, 0, acc, n, kPushNext);
  b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  const std::vector<uint8_t> bytes = p.bytes(MemType::kOut, out, n);
  EXPECT_EQ(bytes[0], 44);    // 300 = 0x12C
  EXPECT_EQ(bytes[1], 0xFF);  // -1
  EXPECT_EQ(bytes[2], 0x7F);
  EXPECT_EQ(bytes[3], 0x80);   // 128
  EXPECT_EQ(bytes[4], 0x80);   // -128
  EXPECT_EQ(bytes[5], 0x7F);   // -129 = 0x...FF7F
  EXPECT_EQ(bytes[6], 0xFF);   // 255
  EXPECT_EQ(bytes[7], 0x00);   // 256
  EXPECT_EQ(bytes[8], 0x78);   // 0x12345678
  EXPECT_EQ(bytes[9], 0x00);   // INT32_MIN
  EXPECT_EQ(bytes[10], 0xFF);  // INT32_MAX
  EXPECT_THAT(p.int8s(MemType::kOut, out, n), ElementsAreArray(narrow8(values)));
  // The accumulator keeps all 32 bits; only STORE narrows.
  EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(values));
  EXPECT_EQ(c.acc_load_nbytes, static_cast<uint64_t>(n * acc_lanes() * 4));
  EXPECT_EQ(c.out_store_nbytes, static_cast<uint64_t>(n * acc_lanes()));
  EXPECT_EQ(c.insn_count, 3u);
}

TEST_P(LoadStoreTest, Acc8BitLoadSignExtends) {
  const int64_t n = 3;
  std::vector<int8_t> values = {0, 1, -1, 127, -128, -2, 64, -65};
  const std::vector<int8_t> fill = random_int8(n * acc_lanes(), 11);
  values.insert(values.end(), fill.begin(), fill.begin() + (n * acc_lanes() - values.size()));

  ProgramBuilder b = builder();
  // Fill the accumulator with garbage first so that the upper bits must be written.
  const int64_t garbage = b.add_int32(random_int32(n * acc_lanes(), 12, kMin32, kMax32));
  const int64_t src = b.add_int8(MemType::kAcc8Bit, values);
  const int64_t out = b.alloc(MemType::kOut, n);
  b.load_1d(MemType::kAcc, 0, garbage, n);
  b.load_1d(MemType::kAcc8Bit, 0, src, n, kPushNext);
  b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  const std::vector<int32_t> acc = acc_buffer(0, n);
  EXPECT_EQ(acc[2], -1);
  EXPECT_EQ(acc[3], 127);
  EXPECT_EQ(acc[4], -128);
  EXPECT_EQ(acc[7], -65);
  EXPECT_THAT(acc, ElementsAreArray(std::vector<int32_t>(values.begin(), values.end())));
  EXPECT_THAT(p.int8s(MemType::kOut, out, n), ElementsAreArray(values));
  // ACC_8BIT counts one byte per lane in acc_load_nbytes, after the int32 garbage load.
  EXPECT_EQ(c.acc_load_nbytes, static_cast<uint64_t>(n * acc_lanes() * 4 + n * acc_lanes()));
}

TEST_P(LoadStoreTest, TwoDimensionalLoadReadsRowsXStrideApart) {
  const int64_t y_size = 3, x_size = 2, x_stride = 5, dram_rows = 3;
  ProgramBuilder b = builder();
  const std::vector<int32_t> dram_values =
      random_int32(dram_rows * x_stride * acc_lanes(), 21, -100000, 100000);
  const int64_t src = b.add_int32(dram_values);
  const int64_t out = b.alloc(MemType::kOut, y_size * x_size);
  b.load(MemType::kAcc, 4, src + 0, y_size, x_size, x_stride, Pads{}, kPushNext);
  b.store(4, out, 1, y_size * x_size, y_size * x_size, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  run(p);

  std::vector<int32_t> expected;
  for (int64_t s : ref_load_sources(y_size, x_size, x_stride, Pads{})) {
    expected.insert(expected.end(), dram_values.begin() + s * acc_lanes(),
                    dram_values.begin() + (s + 1) * acc_lanes());
  }
  EXPECT_THAT(acc_buffer(4, y_size * x_size), ElementsAreArray(expected));
  EXPECT_THAT(p.int8s(MemType::kOut, out, y_size * x_size), ElementsAreArray(narrow8(expected)));
}

TEST_P(LoadStoreTest, StridedStoreLeavesGapsUntouched) {
  const int64_t y_size = 3, x_size = 2, x_stride = 5, sram_base = 3;
  const std::vector<int32_t> values =
      random_int32(y_size * x_size * acc_lanes(), 31, kMin32, kMax32);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(values);
  const int64_t out = b.alloc(MemType::kOut, 1 + y_size * x_stride + 1);
  b.fill(MemType::kOut, out, 1 + y_size * x_stride + 1, 0xA5);
  b.load_1d(MemType::kAcc, sram_base, acc, y_size * x_size, kPushNext);
  b.store(sram_base, out + 1, y_size, x_size, x_stride, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  // The STORE reads a dense y_size x x_size tile and writes row y at out + 1 + y * x_stride.
  const int64_t lanes = acc_lanes();
  std::vector<uint8_t> expected(static_cast<size_t>((1 + y_size * x_stride + 1) * lanes), 0xA5);
  for (int64_t y = 0; y < y_size; ++y) {
    for (int64_t x = 0; x < x_size; ++x) {
      for (int64_t k = 0; k < lanes; ++k) {
        expected[static_cast<size_t>((1 + y * x_stride + x) * lanes + k)] = static_cast<uint8_t>(
            narrow8(values[static_cast<size_t>((y * x_size + x) * lanes + k)]));
      }
    }
  }
  EXPECT_THAT(p.bytes(MemType::kOut, out, 1 + y_size * x_stride + 1), ElementsAreArray(expected));
  EXPECT_EQ(c.out_store_nbytes, static_cast<uint64_t>(y_size * x_size * lanes));
}

TEST_P(LoadStoreTest, XSizeZeroIsANoOp) {
  const int64_t n = 4;
  const std::vector<int32_t> values = random_int32(n * acc_lanes(), 41, kMin32, kMax32);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(values);
  const int64_t out = b.alloc(MemType::kOut, n);
  b.fill(MemType::kOut, out, n, 0x5A);
  b.load_1d(MemType::kAcc, 0, acc, n);
  // x_size 0 with rows and every pad set: nothing is written, not even padding.
  b.load(MemType::kAcc, 0, acc, 2, 0, 0, Pads{1, 1, 1, 1});
  b.load(MemType::kAcc8Bit, 1, acc, 1, 0, 0, Pads{2, 0, 0, 1}, kPushNext);
  b.store(0, out, 2, 0, 0, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  const sim::VtaCounters c = run(p);

  EXPECT_THAT(acc_buffer(0, n), ElementsAreArray(values));
  EXPECT_THAT(p.bytes(MemType::kOut, out, n),
              ElementsAreArray(std::vector<uint8_t>(static_cast<size_t>(n * acc_lanes()), 0x5A)));
  EXPECT_EQ(c.acc_load_nbytes, static_cast<uint64_t>(n * acc_lanes() * 4));
  EXPECT_EQ(c.out_store_nbytes, 0u);
  EXPECT_EQ(c.insn_count, 5u);
}

TEST_P(LoadStoreTest, StoreFromTheLastAccumulatorElement) {
  const int64_t depth = layout().acc_depth;
  const std::vector<int32_t> values = random_int32(acc_lanes(), 51, kMin32, kMax32);
  ProgramBuilder b = builder();
  const int64_t acc = b.add_int32(values);
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kAcc, depth - 1, acc, 1, kPushNext);
  b.store(depth - 1, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  run(p);
  EXPECT_THAT(p.int8s(MemType::kOut, out, 1), ElementsAreArray(narrow8(values)));
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(LoadStoreTest);

}  // namespace
}  // namespace weft::test
