// Test support: the GoogleTest fixture of the functional-simulator suites, value-parameterized
// over the shipped configuration names. It owns a fresh FunctionalSim per test, runs built
// programs on it and captures the UserError message of a rejected program.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "simulator/common/stats.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/program_builder.h"

namespace weft::sim {
/// GoogleTest printer for counters: their STATS.json form.
void PrintTo(const VtaCounters& c, std::ostream* os);
}  // namespace weft::sim

namespace weft::test {

/// The names of every shipped configuration (gemm8x8, vta, tiny, ...).
std::vector<std::string> config_names();

/// Test-name suffix for a configuration parameter: the configuration name itself.
struct ConfigName {
  std::string operator()(const ::testing::TestParamInfo<std::string>& info) const {
    return info.param;
  }
};

/// Fixture: one FunctionalSim of the configuration named by the test parameter.
class FunctionalSimTest : public ::testing::TestWithParam<std::string> {
 protected:
  FunctionalSimTest()
      : layout_(isa::layout_for(GetParam())),
        sim_(layout_),
        cycle_(layout_, isa::find_platform("sim")) {}

  const isa::Layout& layout() const { return layout_; }
  /// A builder for this configuration.
  ProgramBuilder builder() const { return ProgramBuilder(layout_); }
  /// BATCH, BLOCK_IN, BLOCK_OUT of this configuration.
  int batch() const { return layout_.config.batch(); }
  int block_in() const { return layout_.config.block_in(); }
  int block_out() const { return layout_.config.block_out(); }
  /// int32 lanes of one accumulator element (BATCH x BLOCK_OUT).
  int acc_lanes() const { return batch() * block_out(); }

  /// Runs a program on this fixture's simulator (buffers persist between runs), and on the
  /// cycle model, checking that both give the same image and counters.
  sim::VtaCounters run(Program& p);
  /// Runs a program that must be rejected and returns the UserError message; records a test
  /// failure (and returns "") when it runs to completion or throws anything else.
  std::string run_error(Program& p);

  /// `count` accumulator elements from on-chip element `elem`, as int32 lanes.
  std::vector<int32_t> acc_buffer(int64_t elem, int64_t count) const;

  const isa::Layout& layout_;
  sim::FunctionalSim sim_;
  sim::cycle::CycleSim cycle_;
};

}  // namespace weft::test

/// Instantiates a FunctionalSimTest-derived suite once per shipped configuration.
#define WEFT_INSTANTIATE_FOR_ALL_CONFIGS(suite)                                               \
  INSTANTIATE_TEST_SUITE_P(Configs, suite, ::testing::ValuesIn(::weft::test::config_names()), \
                           ::weft::test::ConfigName())
