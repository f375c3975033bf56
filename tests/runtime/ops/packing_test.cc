// Row-major matrices to the blocked layouts (runtime/ops/packing.h) and back: a hand-packed
// example, zero padding beyond the logical size and beyond extra padded blocks, the round
// trip for shapes that are and are not multiples of the block, and size errors.
#include "runtime/ops/packing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace weft::rt {
namespace {

TEST(Packing, AHandPackedExample) {
  // 3 x 3 in 2 x 2 blocks, 2 x 2 blocks: [[1 2 3] [4 5 6] [7 8 9]].
  const BlockedShape s{3, 3, 2, 2, 2, 2};
  const std::vector<int8_t> m = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(pack_blocked(m, s), (std::vector<int8_t>{1, 2, 4, 5,     // block (0, 0)
                                                     3, 0, 6, 0,     // block (0, 1)
                                                     7, 8, 0, 0,     // block (1, 0)
                                                     9, 0, 0, 0}));  // block (1, 1)
  EXPECT_EQ(s.offset(2, 1), 9);
  EXPECT_EQ(unpack_blocked(pack_blocked(m, s).data(), s), m);
}

TEST(Packing, RoundTripsWithZeroPadding) {
  // (rows, cols, block rows, block cols, row blocks, col blocks): exact, ragged, padded to
  // more blocks than needed (tiles and threads), 1 x 1 blocks, one element.
  const BlockedShape shapes[] = {{16, 32, 8, 8, 2, 4}, {20, 30, 1, 16, 20, 2}, {20, 12, 8, 8, 4, 2},
                                 {5, 7, 2, 4, 4, 3},   {9, 9, 1, 1, 9, 9},     {1, 1, 8, 8, 1, 1},
                                 {13, 3, 4, 4, 8, 1}};
  std::mt19937 rng(21);
  for (const BlockedShape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + " in " +
                 std::to_string(s.row_blocks) + "x" + std::to_string(s.col_blocks) + " blocks of " +
                 std::to_string(s.block_rows) + "x" + std::to_string(s.block_cols));
    std::vector<int8_t> m(static_cast<size_t>(s.rows * s.cols));
    for (int8_t& x : m) x = static_cast<int8_t>(rng() % 255 + 1);  // never 0
    const std::vector<int8_t> p = pack_blocked(m, s);
    ASSERT_EQ(static_cast<int64_t>(p.size()), s.elements());
    // Exactly the logical elements are non-zero: everything else is padding.
    EXPECT_EQ(std::count(p.begin(), p.end(), int8_t{0}), s.elements() - s.rows * s.cols);
    // Each element sits in its block at its place in the block.
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t c = 0; c < s.cols; ++c) {
        const int64_t block = (r / s.block_rows) * s.col_blocks + c / s.block_cols;
        const int64_t at = block * s.block_rows * s.block_cols + (r % s.block_rows) * s.block_cols +
                           c % s.block_cols;
        ASSERT_EQ(p[static_cast<size_t>(at)], m[static_cast<size_t>(r * s.cols + c)]);
      }
    }
    EXPECT_EQ(unpack_blocked(p.data(), s), m);
    // int32 data (accumulators) round-trips too.
    std::vector<int32_t> wide(m.begin(), m.end());
    for (int32_t& x : wide) x *= 100000;
    EXPECT_EQ(unpack_blocked(pack_blocked(wide, s).data(), s), wide);
  }
}

TEST(Packing, SizesThatDisagreeAreInternalErrors) {
  const std::vector<int8_t> m(12, 1);
  EXPECT_THROW(pack_blocked(m, BlockedShape{3, 5, 2, 2, 2, 3}), InternalError);  // 15 != 12
  EXPECT_THROW(pack_blocked(m, BlockedShape{3, 4, 1, 2, 2, 2}), InternalError);  // 3 rows > 2
  EXPECT_THROW(pack_blocked(m, BlockedShape{3, 4, 2, 1, 2, 3}), InternalError);  // 4 cols > 3
  EXPECT_NO_THROW(pack_blocked(m, BlockedShape{3, 4, 2, 2, 2, 2}));
}

}  // namespace
}  // namespace weft::rt
