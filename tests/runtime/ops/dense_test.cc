// The dense operator end to end: any M, N, K (padded to blocks and tiles), the ALU epilogue
// (shift, clip, int8), 1, 2 and 4 virtual threads, on the functional and cycle engines, each
// bit-exact against the CPU reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/ops/dense.h"

namespace weft::rt {
namespace {

using compiler::ops::DenseEpilogue;
using compiler::ops::DenseKnobs;
using compiler::ops::DenseShape;

struct Case {
  const char* config;
  DenseShape shape;
  int64_t vthreads;
};

std::vector<int8_t> random_matrix(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(rng());
  return v;
}

// Runs on one engine; returns the cycles (0 for functional) after checking the output.
uint64_t run_and_check(const isa::Layout& l, const DenseBuild& b, const char* engine,
                       const DenseEpilogue& e) {
  const DenseShape& s = b.op.shape;
  const auto a = random_matrix(s.m * s.k, 1), w = random_matrix(s.n * s.k, 2);
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = b.placed.image_bytes;
  auto dev = driver::open_device(engine, o);
  const auto out = run_dense(*dev, b, a, w, std::chrono::seconds(60));
  const auto expect = dense_reference(s, a, w, e);
  EXPECT_EQ(out, expect) << engine;
  const auto details = dev->run_details();
  return details.contains("cycles") ? details["cycles"].get<uint64_t>() : 0;
}

class DenseOp : public ::testing::TestWithParam<Case> {};

TEST_P(DenseOp, MatchesTheReferenceOnBothEngines) {
  const Case& c = GetParam();
  const isa::Layout& l = isa::layout_for(c.config);
  const DenseEpilogue e{6, false};
  const DenseKnobs k =
      compiler::ops::choose_dense_knobs(l, isa::find_platform("sim"), c.shape, c.vthreads);
  const DenseBuild b = build_dense(l, c.shape, k, e);
  for (const char* engine : {"functional", "cycle"}) run_and_check(l, b, engine, e);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const DenseShape shapes[] = {{1, 1, 1},    {8, 8, 8},     {16, 16, 16}, {17, 9, 33},
                               {3, 40, 24},  {64, 32, 48},  {5, 7, 100},  {33, 65, 17},
                               {100, 20, 7}, {48, 48, 160}, {2, 130, 40}, {72, 24, 64}};
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    int64_t t = 0;
    for (const DenseShape& s : shapes) v.push_back({config, s, int64_t{1} << (t++ % 3)});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, DenseOp, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           const Case& c = i.param;
                           return std::string(c.config) + "_" + std::to_string(c.shape.m) + "x" +
                                  std::to_string(c.shape.n) + "x" + std::to_string(c.shape.k) +
                                  "_vt" + std::to_string(c.vthreads);
                         });

// Relu clipping and a shift past the ALU's largest immediate shift (split into two SHRs).
TEST(DenseOpEpilogue, ReluAndLongShift) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const DenseShape s{24, 24, 40};
  for (const DenseEpilogue e : {DenseEpilogue{0, true}, DenseEpilogue{20, false},
                                DenseEpilogue{3, true}}) {
    const DenseBuild b = build_dense(l, s, DenseKnobs{1, 2, 2, 2, 'n'}, e);
    run_and_check(l, b, "cycle", e);
  }
}

// Per-channel requantization: each output column shifts by the common immediate part plus its
// own amount 0..15 from a shift tile in the accumulator (one register SHR); every
// configuration, 1 and 2 virtual threads along m and n, both engines, bit-exact.
TEST(DenseOpEpilogue, PerChannelShifts) {
  const DenseShape shapes[] = {{24, 40, 40}, {1, 100, 64}, {16, 20, 8}};
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const DenseShape& s : shapes) {
      DenseEpilogue e{t == 1 ? 16 : 2 * t, t % 2 == 0};
      e.channel_shifts = true;
      const int64_t vt = 1 + t % 2;
      const DenseKnobs k = compiler::ops::choose_dense_knobs(l, isa::find_platform("sim"), s, vt, true);
      ++t;
      const DenseBuild b = build_dense(l, s, k, e);
      const auto a = random_matrix(s.m * s.k, 1), w = random_matrix(s.n * s.k, 2);
      std::vector<int8_t> shifts(static_cast<size_t>(s.n));
      std::mt19937 rng(5);
      for (int8_t& v : shifts) v = static_cast<int8_t>(rng() % 16);
      for (const char* engine : {"functional", "cycle"}) {
        driver::DeviceOptions o;
        o.layout = &l;
        o.platform = &isa::find_platform("sim");
        o.memory_bytes = b.placed.image_bytes;
        auto dev = driver::open_device(engine, o);
        EXPECT_EQ(run_dense(*dev, b, a, w, std::chrono::seconds(60), shifts),
                  dense_reference(s, a, w, e, shifts))
            << config << " " << engine << " " << k.describe();
      }
    }
  }
}

// Virtual threads hide latency: the same dense takes fewer cycles with 2 and 4 threads.
TEST(DenseOpLatencyHiding, MoreThreadsAreFaster) {
  for (const char* config : {"gemm8x8", "vta"}) {
    SCOPED_TRACE(config);
    const isa::Layout& l = isa::layout_for(config);
    const DenseShape s{128, 128, 128};
    const DenseEpilogue e{8, false};
    uint64_t cycles[3];
    for (int t = 0; t < 3; ++t) {
      const DenseKnobs k = DenseKnobs{2, 2, 4, int64_t{1} << t, 'm'};
      cycles[t] = run_and_check(l, build_dense(l, s, k, e), "cycle", e);
    }
    EXPECT_LT(cycles[1], cycles[0]);
    EXPECT_LT(cycles[2], cycles[0]);
  }
}

TEST(DenseOpErrors, KnobsThatDoNotFitAreRejectedBeforeCodegen) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  EXPECT_THAT([&] { build_dense(l, {1024, 1024, 1024}, DenseKnobs{32, 32, 1, 1, 'm'}, {}); },
              ::testing::ThrowsMessage<UserError>(::testing::HasSubstr(
                  "the ACC tiles need 1024 blocks x 1 threads = 1024 blocks, but the ACC buffer "
                  "of gemm8x8 holds 512")));
  EXPECT_THAT([&] { build_dense(l, {0, 8, 8}, DenseKnobs{}, {}); },
              ::testing::ThrowsMessage<UserError>(::testing::HasSubstr("M = 0 is out of range")));
  EXPECT_THAT([&] { build_dense(l, {8, 8, 8}, DenseKnobs{1, 1, 1, 2, 'k'}, {}); },
              ::testing::ThrowsMessage<UserError>(::testing::HasSubstr("vthread_axis")));
  EXPECT_THAT([&] { build_dense(l, {8, 8, 8}, DenseKnobs{}, DenseEpilogue{40, false}); },
              ::testing::ThrowsMessage<UserError>(::testing::HasSubstr("shift = 40")));
}

}  // namespace
}  // namespace weft::rt
