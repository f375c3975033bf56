// Compiled operators on the Verilated RTL: a few small dense and conv2d shapes give the CPU
// reference's result on the `rtl` engine and exactly the cycle model's cycle count.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "driver/device.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"

namespace weft::rt {
namespace {

bool have_rtl() {
  const auto names = driver::device_names();
  return std::find(names.begin(), names.end(), "rtl") != names.end();
}

std::unique_ptr<driver::Device> open(const char* engine, const isa::Layout& l, uint64_t bytes) {
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = bytes;
  return driver::open_device(engine, o);
}

TEST(OpsOnRtl, DenseMatchesTheReferenceAndTheCycleModel) {
  if (!have_rtl()) GTEST_SKIP() << "this build has no rtl engine (Verilator missing)";
  for (const char* config : {"tiny", "gemm8x8"}) {
    const isa::Layout& l = isa::layout_for(config);
    for (const compiler::ops::DenseShape s : {compiler::ops::DenseShape{9, 13, 20},
                                             compiler::ops::DenseShape{16, 8, 40}}) {
      SCOPED_TRACE(std::string(config) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                   "x" + std::to_string(s.k));
      const compiler::ops::DenseEpilogue e{5, false};
      const DenseBuild b = build_dense(
          l, s, compiler::ops::choose_dense_knobs(l, isa::find_platform("sim"), s, 2), e);
      std::mt19937 rng(4);
      std::vector<int8_t> a(static_cast<size_t>(s.m * s.k)), w(static_cast<size_t>(s.n * s.k));
      for (int8_t& x : a) x = static_cast<int8_t>(rng());
      for (int8_t& x : w) x = static_cast<int8_t>(rng());
      uint64_t cycles[2];
      int i = 0;
      for (const char* engine : {"cycle", "rtl"}) {
        auto dev = open(engine, l, b.placed.image_bytes);
        EXPECT_EQ(run_dense(*dev, b, a, w, std::chrono::seconds(120)), dense_reference(s, a, w, e))
            << engine;
        cycles[i++] = dev->run_details()["cycles"].get<uint64_t>();
      }
      EXPECT_EQ(cycles[0], cycles[1]);
    }
  }
}

TEST(OpsOnRtl, Conv2dMatchesTheReferenceAndTheCycleModel) {
  if (!have_rtl()) GTEST_SKIP() << "this build has no rtl engine (Verilator missing)";
  const isa::Layout& l = isa::layout_for("tiny");
  const compiler::ops::Conv2dShape s{1, 7, 6, 5, 8, 3, 2, 1};
  const compiler::ops::Conv2dEpilogue e{3, true, true};
  const auto k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, 2, 1)[0];
  const Conv2dBuild b = build_conv2d(l, s, k, e);
  const Conv2dData d = random_conv2d_data(s, 8);
  uint64_t cycles[2];
  int i = 0;
  for (const char* engine : {"cycle", "rtl"}) {
    auto dev = open(engine, l, b.placed.image_bytes);
    EXPECT_EQ(run_conv2d(*dev, b, d, std::chrono::seconds(120)), conv2d_reference(s, d, e))
        << engine;
    cycles[i++] = dev->run_details()["cycles"].get<uint64_t>();
  }
  EXPECT_EQ(cycles[0], cycles[1]);
}

// Per-channel shifts on the RTL: the register SHR from a shift tile (and the dense's) give the
// reference's bytes with the cycle model's cycle count.
TEST(OpsOnRtl, PerChannelShiftsMatchTheReferenceAndTheCycleModel) {
  if (!have_rtl()) GTEST_SKIP() << "this build has no rtl engine (Verilator missing)";
  const isa::Layout& l = isa::layout_for("tiny");
  const compiler::ops::Conv2dShape s{1, 7, 6, 5, 8, 3, 2, 1};
  compiler::ops::Conv2dEpilogue e{4, true, true, true, true};
  e.channel_shifts = true;
  const auto k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, 2, 1, true, true)[0];
  const Conv2dBuild b = build_conv2d(l, s, k, e);
  const Conv2dData d = random_conv2d_data(s, 8);
  const compiler::ops::DenseShape ds{9, 13, 20};
  compiler::ops::DenseEpilogue de{2, false};
  de.channel_shifts = true;
  const DenseBuild db = build_dense(
      l, ds, compiler::ops::choose_dense_knobs(l, isa::find_platform("sim"), ds, 2, true), de);
  std::mt19937 rng(4);
  std::vector<int8_t> a(static_cast<size_t>(ds.m * ds.k)), w(static_cast<size_t>(ds.n * ds.k)),
      sh(static_cast<size_t>(ds.n));
  for (int8_t& x : a) x = static_cast<int8_t>(rng());
  for (int8_t& x : w) x = static_cast<int8_t>(rng());
  for (int8_t& x : sh) x = static_cast<int8_t>(rng() % 16);
  uint64_t cycles[2][2];
  int i = 0;
  for (const char* engine : {"cycle", "rtl"}) {
    auto dev = open(engine, l, b.placed.image_bytes);
    EXPECT_EQ(run_conv2d(*dev, b, d, std::chrono::seconds(120)), conv2d_reference(s, d, e))
        << engine;
    cycles[i][0] = dev->run_details()["cycles"].get<uint64_t>();
    auto ddev = open(engine, l, db.placed.image_bytes);
    EXPECT_EQ(run_dense(*ddev, db, a, w, std::chrono::seconds(120), sh),
              dense_reference(ds, a, w, de, sh))
        << engine;
    cycles[i++][1] = ddev->run_details()["cycles"].get<uint64_t>();
  }
  EXPECT_EQ(cycles[0][0], cycles[1][0]);
  EXPECT_EQ(cycles[0][1], cycles[1][1]);
}

}  // namespace
}  // namespace weft::rt
