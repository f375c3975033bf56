// The `weft run dense --dry-run` estimate (runtime/cli/dense_estimate.h) against a known cost
// model: a sample's times are a fixed cost plus a cost per multiply-accumulate, with noise. The
// estimate must recover the cost of the whole dense from the cost per unit of work. It scaled a
// single tiny sample's time up instead, fixed cost included, so a 2048^3 dense whose run takes
// about a second was estimated at 7 to 52 s (the fixed cost times some thousand).
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/dense.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/cli/dense_estimate.h"

namespace weft::cli {
namespace {

TEST(DenseEstimate, SeparatesTheFixedCostFromTheCostPerUnitOfWork) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const isa::Platform& p = isa::find_platform("sim");
  const compiler::ops::DenseShape s{2048, 2048, 2048};
  const auto knobs = compiler::ops::choose_dense_knobs(l, p, s, 2);
  // Each phase: a fixed cost (opening the device, starting threads) plus a cost per MAC, and up
  // to 30% noise on top (a loaded machine); the estimate keeps the fastest of a few timings.
  constexpr double kFixed = 0.004, kRunPerMac = 1e-10, kCheckPerMac = 4e-10;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(1.0, 1.3);
  int samples = 0;
  auto timer = [&](const compiler::ops::DenseShape& x) {
    ++samples;
    const double macs = double(x.m) * double(x.n) * double(x.k);
    SampleSeconds t;
    t.compile = 0.001 * noise(rng);
    t.run = (kFixed + kRunPerMac * macs) * noise(rng);
    t.check = (kFixed + kCheckPerMac * macs) * noise(rng);
    return t;
  };
  const DenseEstimate est = estimate_dense(l, p, "cycle", s, knobs, {8, false}, timer);
  const double macs = 2048.0 * 2048.0 * 2048.0;
  EXPECT_EQ(est.macs, macs);
  const double run = kFixed + kRunPerMac * macs, check = kFixed + kCheckPerMac * macs;
  EXPECT_NEAR(est.run_s, run, 0.3 * run) << "sample " << est.sample;
  EXPECT_NEAR(est.check_s, check, 0.3 * check) << "sample " << est.sample;
  EXPECT_GT(samples, 3);  // more than one sample, each timed more than once
}

// A dense small enough is timed whole: the estimate is then what it measured.
TEST(DenseEstimate, ASmallDenseIsTimedWhole) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const isa::Platform& p = isa::find_platform("sim");
  const compiler::ops::DenseShape s{16, 16, 64};
  const auto knobs = compiler::ops::choose_dense_knobs(l, p, s, 1);
  auto timer = [](const compiler::ops::DenseShape& x) {
    SampleSeconds t;
    t.run = 1e-6 * double(x.m) * double(x.n) * double(x.k) / 1024;
    return t;
  };
  const DenseEstimate est = estimate_dense(l, p, "cycle", s, knobs, {8, false}, timer);
  EXPECT_EQ(est.sample, "16x16x64");
  EXPECT_NEAR(est.run_s, 16e-6, 1e-9);
}

}  // namespace
}  // namespace weft::cli
