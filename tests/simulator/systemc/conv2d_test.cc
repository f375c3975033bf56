// The SystemC model's claim on compiled ResNet-18 layers (the `weft run conv2d` path): a run
// through the registers completes (its interrupt rises) exactly the bare cycle model's cycle
// count times the clock period after ap_start, with the counters in its registers, and leaves
// memory byte for byte as the functional (golden) model does, holding the CPU reference's
// output. Untimed, the same run completes at its start with the same data.
#include "compiler/ops/conv2d.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/simulator/systemc/run_checks.h"
#include "tests/simulator/systemc/test_platform.h"

namespace weft::test {
namespace {

using sc_core::sc_time;

struct Layer {
  std::string config, layer;
  int64_t batch;
};

void PrintTo(const Layer& x, std::ostream* os) {
  *os << x.layer << " (batch " << x.batch << ") on " << x.config;
}

class SystemcConv2dTest : public ::testing::TestWithParam<Layer> {};

TEST_P(SystemcConv2dTest, ResNetLayerCompletesAtCyclesTimesPeriodWithTheReferenceOutput) {
  const Layer& x = GetParam();
  TestPlatform& tp = TestPlatform::get();
  const isa::Layout& l = isa::layout_for(x.config);
  const isa::Platform& platform = isa::find_platform("sim");
  compiler::ops::Conv2dShape s;
  for (const auto& spec : rt::resnet18_layers()) {
    if (spec.name == x.layer) s = spec.shape;
  }
  s.n = x.batch;
  const compiler::ops::Conv2dEpilogue e;
  const rt::Conv2dBuild b =
      rt::build_conv2d(l, s, compiler::ops::conv2d_candidates(l, platform, s, 2, 1).at(0), e);
  const rt::Conv2dData data = rt::random_conv2d_data(s, 17);
  const std::vector<uint8_t> image = rt::conv2d_image(b, data);
  ASSERT_LE(image.size(), TestPlatform::kWindowBytes);
  const uint64_t insn_count = b.placed.stream.insn_count;

  std::vector<uint8_t> golden = image, timed = image;
  sim::FunctionalSim(l).run(golden, 0, insn_count);
  const sim::cycle::CycleStats want = sim::cycle::CycleSim(l, platform).run(timed, 0, insn_count);

  sysc::Accelerator& acc = tp.accel(x.config);
  acc.set_use_dmi(true);
  tlm::tlm_global_quantum::instance().set(sc_time(10, sc_core::SC_US));
  for (const sysc::Timing timing : {sysc::Timing::kTimed, sysc::Timing::kUntimed}) {
    const bool is_timed = timing == sysc::Timing::kTimed;
    SCOPED_TRACE(is_timed ? "timed" : "untimed");
    acc.set_timing(timing);
    tp.load(0, image);
    RegisterRun r;
    tp.run_host([&] { r = tp.run_registers(x.config, TestPlatform::kMemBase, 0, insn_count); });
    expect_run_matches(r, acc, want, is_timed);
    const std::vector<uint8_t> got = tp.dump(0, image.size());
    EXPECT_TRUE(got == golden) << "memory differs from the functional model's image";
    EXPECT_EQ(rt::conv2d_output(b, got), rt::conv2d_reference(s, data, e));
  }
  acc.set_timing(sysc::Timing::kTimed);
}

INSTANTIATE_TEST_SUITE_P(Layers, SystemcConv2dTest,
                         ::testing::Values(Layer{"vta", "C12", 1}, Layer{"vta", "C9", 1},
                                           Layer{"gemm8x8", "C11", 8}),
                         [](const auto& info) {
                           return info.param.config + "_" + info.param.layer;
                         });

}  // namespace
}  // namespace weft::test
