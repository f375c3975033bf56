// The dense operator's knobs (compiler/ops/dense.h): check_dense_knobs names the buffer, the
// need and the capacity, or the bad thread count or axis; choose_dense_knobs returns knobs
// that pass that check for every configuration, thread count and a sweep of shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/dense.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops {
namespace {

using ::testing::HasSubstr;

auto throws(const std::string& what) {
  return ::testing::ThrowsMessage<UserError>(HasSubstr(what));
}

TEST(DenseKnobs, CapacityErrorsNameTheBufferTheNeedAndTheDepth) {
  const isa::Layout& l = isa::layout_for("gemm8x8");  // ACC 512, INP 512, WGT 4096 blocks
  const DenseShape s{4096, 4096, 4096};
  EXPECT_NO_THROW(check_dense_knobs(l, s, {16, 32, 32, 1, 'm'}));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {32, 32, 1, 1, 'm'});
      },
      throws("dense knobs (tile_m=32 tile_n=32 tile_k=1 vthreads=1 vthread_axis=m): the "
             "ACC tiles need 1024 blocks x 1 threads = 1024 blocks, but the ACC buffer "
             "of gemm8x8 holds 512"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 1, 513, 1, 'm'});
      },
      throws("the INP tiles need 513 blocks x 1 threads = 513 blocks, but the INP "
             "buffer of gemm8x8 holds 512"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 16, 512, 1, 'm'});
      },
      throws("the WGT tiles need 8192 blocks x 1 threads = 8192 blocks, but the WGT "
             "buffer of gemm8x8 holds 4096"));
  // Every thread holds its own tiles: what fits one thread may not fit two.
  EXPECT_NO_THROW(check_dense_knobs(l, s, {16, 16, 16, 2, 'n'}));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {16, 32, 1, 2, 'n'});
      },
      throws("the ACC tiles need 512 blocks x 2 threads = 1024 blocks"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {2, 1, 200, 2, 'm'});
      },
      throws("the INP tiles need 400 blocks x 2 threads = 800 blocks"));
  const isa::Layout& tiny = isa::layout_for("tiny");  // 256 blocks each
  EXPECT_NO_THROW(check_dense_knobs(tiny, {64, 64, 64}, {8, 8, 1, 4, 'm'}));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(tiny, {64, 64, 64}, {8, 8, 1, 5, 'm'});
      },
      throws("the ACC tiles need 64 blocks x 5 threads = 320 blocks, but the ACC buffer "
             "of tiny holds 256"));
}

TEST(DenseKnobs, ThreadCountAxisTilesAndShapeErrors) {
  const isa::Layout& l = isa::layout_for("vta");
  const DenseShape s{64, 64, 64};
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 1, 1, 0, 'm'});
      },
      throws("dense knobs: vthreads = 0 is out of range (1 to 64)"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 1, 1, 65, 'm'});
      },
      throws("vthreads = 65 is out of range (1 to 64)"));
  EXPECT_NO_THROW(check_dense_knobs(l, s, {1, 1, 1, 64, 'm'}));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 1, 1, 2, 'k'});
      },
      throws("dense knobs: vthread_axis must be 'm' or 'n', not 'k'"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, s, {1, 0, 1, 1, 'm'});
      },
      throws("dense knobs: tiles must be at least one block (tile_m=1 tile_n=0"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, {64, 0, 64}, {});
      },
      throws("dense: N = 0 is out of range (1 to 1048576)"));
  EXPECT_THAT(
      [&] {
        check_dense_knobs(l, {64, 64, (1 << 20) + 1}, {});
      },
      throws("dense: K = 1048577 is out of range"));
  // A padded operator whose DRAM offsets would not fit 32 bits.
  EXPECT_THAT(
      [&] {
        check_dense_knobs(isa::layout_for("tiny"), {1 << 20, 1 << 20, 1 << 20}, {});
      },
      throws("is too large for the 32-bit DRAM addresses"));
}

TEST(DenseKnobs, ChosenKnobsAlwaysPassTheCheck) {
  const DenseShape shapes[] = {
      {1, 1, 1},       {1, 1000, 1},       {1000, 1, 1},     {1, 1, 1000},    {7, 13, 29},
      {16, 16, 16},    {20, 12, 30},       {33, 65, 17},     {100, 3, 7},     {128, 128, 128},
      {255, 257, 511}, {1024, 1024, 1024}, {4096, 64, 4096}, {1, 4096, 4096}, {65536, 16, 16}};
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    for (const char* platform : {"sim", "pynq", "zcu104"}) {
      for (const DenseShape& s : shapes) {
        for (int64_t t : {1, 2, 4}) {
          SCOPED_TRACE(std::string(config) + " " + platform + " " + std::to_string(s.m) + "x" +
                       std::to_string(s.n) + "x" + std::to_string(s.k) + " threads " +
                       std::to_string(t));
          const DenseKnobs k = choose_dense_knobs(l, isa::find_platform(platform), s, t);
          EXPECT_EQ(k.vthreads, t);
          EXPECT_NO_THROW(check_dense_knobs(l, s, k)) << k.describe();
        }
      }
    }
  }
}

TEST(DenseKnobs, ChosenKnobsStayUnderTheDramLimitNearIt) {
  // tiny (1 x 4 x 4 blocks): M = 2^20 rows and K = 8188 (2047 blocks) fit the 32-bit DRAM
  // offsets, but a reduction step of two or more blocks pads K to 2048 blocks, which does not.
  const isa::Layout& l = isa::layout_for("tiny");
  const DenseShape s{1 << 20, 4, 8188};
  EXPECT_NO_THROW(check_dense_knobs(l, s, {1, 1, 1, 1, 'm'}));
  for (int64_t t : {1, 2}) {
    const DenseKnobs k = choose_dense_knobs(l, isa::find_platform("sim"), s, t);
    EXPECT_NO_THROW(check_dense_knobs(l, s, k)) << k.describe();
  }
}

TEST(DenseKnobs, ChooserErrors) {
  const isa::Layout& l = isa::layout_for("tiny");
  EXPECT_THAT(
      [&] {
        choose_dense_knobs(l, isa::find_platform("sim"), {0, 1, 1}, 1);
      },
      throws("M = 0 is out of range"));
  // 512 threads cannot each hold a tile in tiny's 256-block buffers.
  EXPECT_THAT(
      [&] {
        choose_dense_knobs(l, isa::find_platform("sim"), {8, 8, 8}, 512);
      },
      throws("dense: no tiling fits the buffers of tiny with 512 virtual threads"));
  // A shape too large for any tiling says so.
  EXPECT_THAT(
      [&] {
        choose_dense_knobs(l, isa::find_platform("sim"), {1 << 20, 1 << 20, 1 << 20}, 1);
      },
      throws("dense: the padded operator (1048576x262144x262144 blocks) is too large for "
             "the 32-bit DRAM addresses"));
}

TEST(DenseKnobs, MakeDensePadsToBlocksAndTiles) {
  const isa::Layout& l = isa::layout_for("vta");  // 1 x 16 x 16
  const Dense d = make_dense(l, {20, 12, 30}, {2, 1, 2, 2, 'm'}, {8, false});
  // M = 20 rows -> 20 blocks, tiles of 2 on 2 threads -> 20; N = 12 -> 1; K = 30 -> 2.
  EXPECT_EQ(d.mb, 20);
  EXPECT_EQ(d.nb, 1);
  EXPECT_EQ(d.kb, 2);
  EXPECT_EQ(d.a->shape, (std::vector<int64_t>{20, 2, 1, 16}));
  EXPECT_EQ(d.w->shape, (std::vector<int64_t>{1, 2, 16, 16}));
  EXPECT_EQ(d.d->shape, (std::vector<int64_t>{20, 1, 1, 16}));
  const Dense e = make_dense(l, {21, 12, 30}, {2, 1, 2, 2, 'm'}, {8, false});
  EXPECT_EQ(e.mb, 24) << "21 blocks padded to whole tiles of 2 x 2 threads";
  const Dense n = make_dense(l, {21, 40, 30}, {1, 1, 1, 4, 'n'}, {8, false});
  EXPECT_EQ(n.nb, 4) << "3 column blocks padded to 4 threads of 1-block tiles";
  EXPECT_EQ(n.mb, 21);
}

}  // namespace
}  // namespace weft::compiler::ops
