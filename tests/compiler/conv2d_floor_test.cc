// The ISA floor of a convolution (compiler/ops/conv2d_floor.h): per output vector the GEMM
// micro-ops of every tap plus the epilogue's minimum (init, shift, clip, bias, residual), the
// same without padding taps, and the bus bound where it is larger (the fc).
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/ops/conv2d_floor.h"

namespace weft::compiler::ops {
namespace {

TEST(Conv2dFloor, ResNetStageOneConvOnVta) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{1, 56, 56, 64, 64, 3, 1, 1};
  Conv2dEpilogue e;
  e.shift = 10;
  e.bias = true;
  e.bias_first = true;
  const Conv2dFloor f = conv2d_floor(l, s, e, 16);
  EXPECT_EQ(f.vectors, 4 * 56 * 56);
  EXPECT_EQ(f.gemm_uops_all_taps, 4 * 56 * 56 * 4 * 9);
  EXPECT_EQ(f.epilogue_ops, 5);  // init, bias, shr, max, min
  EXPECT_EQ(f.cycles_all_taps, 451584 + 5 * 12544);
  // Rows (and columns) 0 and 55 see 2 of 3 taps: 54 x 3 + 2 x 2 = 166 per axis.
  EXPECT_EQ(f.gemm_uops, 4 * 4 * 166 * 166);
  EXPECT_EQ(f.cycles, 4 * 4 * 166 * 166 + 5 * 12544);
  e.residual = true;
  EXPECT_EQ(conv2d_floor(l, s, e, 16).cycles_all_taps, 451584 + 6 * 12544);
  // No bias input (stem_im2col folded it into free lanes) and no shift: init, max, min.
  e = Conv2dEpilogue{};
  e.shift = 0;
  e.bias = false;
  EXPECT_EQ(conv2d_floor(l, s, e, 16).epilogue_ops, 3);
}

TEST(Conv2dFloor, StrideTwoPadsOnlyTheFirstRowAndColumn) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{1, 14, 14, 256, 512, 3, 2, 1};  // layer4.0.conv1
  Conv2dEpilogue e;
  const Conv2dFloor f = conv2d_floor(l, s, e, 16);
  EXPECT_EQ(f.vectors, 32 * 49);
  EXPECT_EQ(f.gemm_uops, 32 * 16 * 20 * 20);  // 6 x 3 + 2 taps per axis
}

TEST(Conv2dFloor, TheFcIsBoundByItsWeightsOnTheBus) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{1, 1, 1, 512, 1000, 1, 1, 0};
  Conv2dEpilogue e;
  e.relu = false;
  const Conv2dFloor f = conv2d_floor(l, s, e, 16);
  // 512 B of input, 63 x 32 weight blocks of 256 B, 63 output blocks of 16 B, 16 B a beat.
  EXPECT_EQ(f.memory_cycles, (512 + 63 * 32 * 256 + 63 * 16 + 15) / 16);
  EXPECT_EQ(f.cycles, f.memory_cycles);
  EXPECT_GT(f.cycles, f.gemm_uops + f.vectors * f.epilogue_ops);
  EXPECT_EQ(f.cycles_all_taps, f.cycles);
}

TEST(Conv2dFloor, BatchBlocksOnGemm8x8) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const Conv2dShape s{8, 7, 7, 512, 512, 3, 1, 1};
  Conv2dEpilogue e;
  const Conv2dFloor f = conv2d_floor(l, s, e, 16);
  EXPECT_EQ(f.vectors, 1 * 64 * 49);
  EXPECT_EQ(f.gemm_uops_all_taps, 64 * 49 * 64 * 9);
}

TEST(Conv2dFloor, AWideBusInitialisesSeveralNarrowRowsACycle) {
  // tiny's accumulator rows are narrower than the bus: a LOAD's filler writes several a cycle.
  const isa::Layout& l = isa::layout_for("tiny");
  const int64_t g = std::max<int64_t>(1, 16 / l.acc8_elem_bytes);
  ASSERT_GT(g, 1);
  const Conv2dShape s{1, 8, 8, 8, 8, 1, 1, 0};
  Conv2dEpilogue e;  // init, bias, shr, max, min
  const Conv2dFloor f = conv2d_floor(l, s, e, 16);
  EXPECT_EQ(f.cycles, std::max(f.gemm_uops + 4 * f.vectors + (f.vectors + g - 1) / g, f.memory_cycles));
}

}  // namespace
}  // namespace weft::compiler::ops
