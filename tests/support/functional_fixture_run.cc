// FunctionalSimTest::run: every program on the functional model and the cycle model, which
// must agree. Alone in its file so that weft_rtl_suite_tests can replace it (its own run,
// in tests/rtl/rtl_fixture.cc, also runs the RTL) while sharing the rest of the fixture.
#include "hardware/isa/errors.h"
#include "simulator/cycle/cycle_stats.h"
#include "tests/support/functional_fixture.h"

namespace weft::test {

sim::VtaCounters FunctionalSimTest::run(Program& p) {
  // Every program of the instruction suite also runs on the cycle model, which must give the
  // same image and counters (both keep their on-chip state between runs of one test).
  std::vector<uint8_t> cycle_image = p.dram;
  const sim::VtaCounters c = sim_.run(p.dram, p.insn_offset, p.insn_count);
  try {
    const sim::cycle::CycleStats s = cycle_.run(cycle_image, p.insn_offset, p.insn_count);
    EXPECT_EQ(s.counters, c) << "cycle model counters differ";
    EXPECT_TRUE(cycle_image == p.dram) << "cycle model image differs from the functional model's";
  } catch (const UserError& e) {
    ADD_FAILURE() << "the cycle model rejected a program the functional model ran: " << e.what();
  }
  return c;
}

}  // namespace weft::test
