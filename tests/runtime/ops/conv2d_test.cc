// conv2d end to end: kernel sizes, strides, zero padding through the DMA pads, channels and
// batch that are not multiples of the block, the bias/shift/clip epilogue on the ALU, 1 and 2
// virtual threads along output channels and rows, on the functional and cycle engines, each
// bit-exact against the CPU reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/ops/conv2d.h"

namespace weft::rt {
namespace {

using compiler::ops::Conv2dEpilogue;
using compiler::ops::Conv2dKnobs;
using compiler::ops::Conv2dShape;

struct Case {
  const char* config;
  Conv2dShape shape;
  int64_t vthreads;
};

uint64_t run_and_check(const isa::Layout& l, const Conv2dBuild& b, const char* engine,
                       const Conv2dEpilogue& e) {
  const Conv2dData d = random_conv2d_data(b.op.shape, 3);
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = b.placed.image_bytes;
  auto dev = driver::open_device(engine, o);
  const auto out = run_conv2d(*dev, b, d, std::chrono::seconds(60));
  EXPECT_EQ(out, conv2d_reference(b.op.shape, d, e)) << engine << " " << b.op.knobs.describe();
  const auto details = dev->run_details();
  return details.contains("cycles") ? details["cycles"].get<uint64_t>() : 0;
}

class Conv2dOp : public ::testing::TestWithParam<Case> {};

TEST_P(Conv2dOp, MatchesTheReferenceOnBothEngines) {
  const Case& c = GetParam();
  const isa::Layout& l = isa::layout_for(c.config);
  const Conv2dEpilogue e{4, true, true};
  const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), c.shape,
                                                         c.vthreads, 1)
                            .at(0);
  const Conv2dBuild b = build_conv2d(l, c.shape, k, e);
  for (const char* engine : {"functional", "cycle"}) run_and_check(l, b, engine, e);
}

std::vector<Case> cases() {
  // N, H, W, IC, OC, K, stride, pad
  const Conv2dShape shapes[] = {{1, 8, 8, 16, 16, 3, 1, 1},  {2, 9, 7, 5, 20, 3, 2, 1},
                                {1, 6, 6, 16, 32, 1, 1, 0},  {1, 11, 11, 3, 16, 5, 2, 2},
                                {3, 14, 14, 32, 16, 3, 1, 1}, {1, 7, 7, 8, 8, 7, 2, 3},
                                {1, 8, 8, 24, 24, 1, 2, 0},  {1, 5, 5, 16, 16, 3, 1, 0}};
  std::vector<Case> v;
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    int t = 0;
    for (const Conv2dShape& s : shapes) v.push_back({config, s, int64_t{1} + (t++ % 2)});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dOp, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           const Conv2dShape& s = i.param.shape;
                           return std::string(i.param.config) + "_n" + std::to_string(s.n) + "_" +
                                  std::to_string(s.h) + "x" + std::to_string(s.w) + "_ic" +
                                  std::to_string(s.ic) + "_oc" + std::to_string(s.oc) + "_k" +
                                  std::to_string(s.k) + "s" + std::to_string(s.stride) + "p" +
                                  std::to_string(s.pad) + "_vt" + std::to_string(i.param.vthreads);
                         });

// Every knob setting in a sweep is correct, including both thread axes and tiles that do not
// divide the output (rounded-up rows computed on padding and dropped).
TEST(Conv2dKnobSweep, ManyTilingsAreCorrect) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{1, 10, 10, 32, 64, 3, 1, 1};
  const Conv2dEpilogue e{5, true, false};
  for (const Conv2dKnobs& k : {Conv2dKnobs{3, 4, 1, 1, 2, 'h'}, Conv2dKnobs{10, 10, 2, 2, 2, 'o'},
                               Conv2dKnobs{4, 3, 2, 1, 1, 'o'}, Conv2dKnobs{1, 10, 1, 4, 2, 'o'}}) {
    run_and_check(l, build_conv2d(l, s, k, e), "cycle", e);
  }
}

TEST(Conv2dLatencyHiding, TwoThreadsAreFaster) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const Conv2dShape s{8, 14, 14, 32, 32, 3, 1, 1};
  const Conv2dEpilogue e{};
  const uint64_t one = run_and_check(l, build_conv2d(l, s, Conv2dKnobs{7, 14, 1, 2, 1, 'o'}, e),
                                     "cycle", e);
  const uint64_t two = run_and_check(l, build_conv2d(l, s, Conv2dKnobs{7, 14, 1, 2, 2, 'o'}, e),
                                     "cycle", e);
  EXPECT_LT(two, one);
}

TEST(Conv2dErrors, BadShapesAndKnobsAreRejectedBeforeCodegen) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  auto msg = [&](const Conv2dShape& s, const Conv2dKnobs& k) {
    try {
      build_conv2d(l, s, k, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 0, 1}, {}), HasSubstr("stride = 0 is out of range"));
  EXPECT_THAT(msg({1, 2, 2, 16, 16, 5, 1, 0}, {}), HasSubstr("kernel is larger than the padded"));
  EXPECT_THAT(msg({1, 56, 56, 64, 64, 3, 1, 1}, {56, 56, 8, 8, 1, 'o'}),
              HasSubstr("buffer of gemm8x8 holds"));
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 1, 1}, {1, 1, 1, 1, 2, 'w'}), HasSubstr("vthread_axis"));
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 1, 1}, {9, 1, 1, 1, 1, 'o'}),
              HasSubstr("larger than the 8x8 output"));
}

}  // namespace
}  // namespace weft::rt
