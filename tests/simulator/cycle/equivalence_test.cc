// Equivalence of the cycle model with the functional (golden) model: on every shipped
// configuration, hundreds of seeded random programs (tests/support/random_program.h) must
// leave byte-identical DRAM images and identical VTA counters on both, and the cycle model's
// accounting must give every module exactly `cycles` cycles. Each model keeps its on-chip
// buffers from one program to the next, as hardware does, so the programs' "load what you
// read" discipline is exercised too. A subset also runs on the pynq and zcu104 platforms,
// whose memory timing differs, which must not change any result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "hardware/isa/encoding.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/functional_fixture.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

constexpr uint64_t kSeeds = 200;
constexpr uint64_t kOtherPlatformEvery = 5;  // seeds 5, 10, ... also run on pynq and zcu104

class EquivalenceTest : public ::testing::TestWithParam<std::string> {
 protected:
  const isa::Layout& layout() const { return isa::layout_for(GetParam()); }
};

// Checks one program's results; returns false after the first mismatch so that a broken
// model reports one seed, not hundreds.
bool expect_equivalent(const RandomProgram& rp, const BothModelsResult& r) {
  const Program& p = rp.program;
  EXPECT_EQ(r.functional_dram.size(), p.dram.size());
  EXPECT_EQ(r.cycle_dram.size(), p.dram.size());
  if (r.functional_dram != r.cycle_dram) {
    size_t i = 0;
    while (i < r.functional_dram.size() && r.functional_dram[i] == r.cycle_dram[i]) ++i;
    ADD_FAILURE() << "final DRAM images differ; first at byte " << i << ": functional "
                  << int(r.functional_dram[i]) << ", cycle " << int(r.cycle_dram[i]);
  }
  EXPECT_EQ(r.functional_counters, r.cycle_stats.counters);
  EXPECT_EQ(r.functional_counters.insn_count, p.insn_count);
  if (r.functional_counters.out_store_nbytes > 0) {
    EXPECT_NE(r.functional_dram, p.dram) << "stores ran but the image did not change";
  }
  const sim::cycle::CycleStats& s = r.cycle_stats;
  EXPECT_GT(s.cycles, 0u);
  EXPECT_EQ(s.load.total(), s.cycles);
  EXPECT_EQ(s.compute.total(), s.cycles);
  EXPECT_EQ(s.store.total(), s.cycles);
  EXPECT_EQ(s.fetch.total(), s.cycles);
  EXPECT_EQ(s.insn_fetch_nbytes, p.insn_count * isa::kInsnBytes);
  return !::testing::Test::HasFailure();
}

TEST_P(EquivalenceTest, RandomProgramsGiveTheSameImageAndCounters) {
  sim::FunctionalSim functional(layout());
  sim::cycle::CycleSim cycle(layout(), isa::find_platform("sim"));
  uint64_t insns = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " on " + GetParam() + "/sim");
    const RandomProgram rp = random_program(layout(), seed);
    insns += rp.program.insn_count;
    if (!expect_equivalent(rp, run_both(rp.program, functional, cycle))) return;
  }
  EXPECT_GT(insns, kSeeds * 20);  // the programs are not trivially short
}

TEST_P(EquivalenceTest, OtherPlatformsChangeTimingOnly) {
  for (const char* platform : {"pynq", "zcu104"}) {
    sim::FunctionalSim functional(layout());
    sim::cycle::CycleSim cycle(layout(), isa::find_platform(platform));
    sim::cycle::CycleSim reference(layout(), isa::find_platform("sim"));
    bool some_slower = false;
    for (uint64_t seed = kOtherPlatformEvery; seed <= kSeeds; seed += kOtherPlatformEvery) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " on " + GetParam() + "/" + platform);
      const RandomProgram rp = random_program(layout(), seed);
      const BothModelsResult r = run_both(rp.program, functional, cycle);
      if (!expect_equivalent(rp, r)) return;
      std::vector<uint8_t> dram = rp.program.dram;
      const sim::cycle::CycleStats on_sim =
          reference.run(dram, rp.program.insn_offset, rp.program.insn_count);
      some_slower = some_slower || on_sim.cycles != r.cycle_stats.cycles;
    }
    EXPECT_TRUE(some_slower) << platform << " gives the same cycle counts as sim everywhere";
  }
}

// The same program twice on the same models: identical results, as the buffers it reads are
// ones it loads itself.
TEST_P(EquivalenceTest, RerunningAProgramGivesTheSameResult) {
  sim::FunctionalSim functional(layout());
  sim::cycle::CycleSim cycle(layout(), isa::find_platform("sim"));
  const RandomProgram rp = random_program(layout(), 7);
  const BothModelsResult first = run_both(rp.program, functional, cycle);
  const BothModelsResult second = run_both(rp.program, functional, cycle);
  EXPECT_EQ(first.functional_dram, second.functional_dram);
  EXPECT_EQ(first.cycle_dram, second.cycle_dram);
  EXPECT_EQ(first.cycle_stats.cycles, second.cycle_stats.cycles);
  EXPECT_EQ(first.functional_counters, second.functional_counters);
}

INSTANTIATE_TEST_SUITE_P(Configs, EquivalenceTest, ::testing::ValuesIn(config_names()),
                         ConfigName());

}  // namespace
}  // namespace weft::test
