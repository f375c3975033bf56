// The SystemC model's claim on random programs of every shipped configuration and of a
// configuration file (tests/support/configs/b2x8x8.json): a run through
// the registers completes (its interrupt rises) exactly the bare cycle model's cycle count
// times the clock period after ap_start, reports that count and the per-module counters in its
// registers, and leaves memory byte for byte as the functional (golden) model does. The
// platform memory adds latency to every transaction, which must not change the timing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/simulator/systemc/run_checks.h"
#include "tests/simulator/systemc/test_platform.h"
#include "tests/support/random_program.h"
#include "tests/support/test_configs.h"

namespace weft::test {
namespace {

using sc_core::sc_time;

class SystemcRandomTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SystemcRandomTest, CompletesAtCyclesTimesPeriodWithTheFunctionalModelsData) {
  TestPlatform& tp = TestPlatform::get();
  const std::string config = GetParam();
  const isa::Layout& l = isa::layout_for(config);
  sysc::Accelerator& acc = tp.accel(config);
  acc.set_timing(sysc::Timing::kTimed);
  acc.set_use_dmi(true);
  tlm::tlm_global_quantum::instance().set(sc_time(1, sc_core::SC_US));
  sim::FunctionalSim functional(l);
  sim::cycle::CycleSim cycle(l, isa::find_platform("sim"));
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Program p = random_program(l, seed).program;
    const BothModelsResult want = run_both(p, functional, cycle);
    const uint64_t offset = seed * 0x11000;  // a different DRAM base each time
    tp.load(offset, p.dram);
    RegisterRun r;
    tp.run_host([&] {
      r = tp.run_registers(config, TestPlatform::kMemBase + offset, p.insn_offset, p.insn_count);
    });
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_run_matches(r, acc, want.cycle_stats, true);
    EXPECT_TRUE(tp.dump(offset, p.dram.size()) == want.functional_dram)
        << "memory differs from the functional model's image";
    EXPECT_EQ(acc.last_stats().counters, want.functional_counters);
    if (HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, SystemcRandomTest,
                         ::testing::Values("gemm8x8", "vta", "tiny", test_config_file()),
                         [](const auto& info) { return isa::layout_for(info.param).config.name; });

}  // namespace
}  // namespace weft::test
