// The functional instruction suite (tests/simulator/functional/*) re-run on the RTL: this file
// replaces tests/support/functional_fixture_run.cc in weft_rtl_suite_tests, so that every
// program a suite test runs also runs on the cycle model and the Verilated RTL of its
// configuration.
// The RTL must leave the functional model's image byte for byte, and take exactly the cycle
// model's cycles (the first instruction whose completion differs is reported otherwise).
#include <exception>

#include "hardware/isa/errors.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_stats.h"
#include "tests/rtl/cosim.h"
#include "tests/support/functional_fixture.h"

namespace weft::test {

sim::VtaCounters FunctionalSimTest::run(Program& p) {
  std::vector<uint8_t> input = p.dram;
  const sim::VtaCounters c = sim_.run(p.dram, p.insn_offset, p.insn_count);
  std::vector<uint8_t> cycle_image = input, rtl_image = input;
  try {
    const sim::cycle::CycleStats s = cycle_.run(cycle_image, p.insn_offset, p.insn_count);
    const driver::rtl::RtlRunResult r =
        rtl_engine(GetParam()).run(rtl_image, p.insn_offset, p.insn_count, {});
    EXPECT_EQ(r.error, 0u) << r.error_detail;
    EXPECT_TRUE(rtl_image == p.dram) << "the RTL's image differs from the functional model's";
    EXPECT_EQ(r.stats.cycles, s.cycles) << "the RTL and the cycle model disagree on cycles";
    EXPECT_EQ(r.stats.counters, c) << "the RTL's counters differ";
    if (r.stats.cycles != s.cycles || r.start.empty()) {
      // Say where: re-run on fresh engines with per-instruction timing.
      Program q = p;
      q.dram = input;
      sim::FunctionalSim f(layout_);
      sim::cycle::CycleSim cy(layout_, isa::find_platform("sim"));
      ADD_FAILURE() << cosimulate(q, f, cy, rtl_engine(GetParam())).mismatch;
    }
  } catch (const UserError& e) {
    ADD_FAILURE() << "a timed engine rejected a program the functional model ran: " << e.what();
  }
  return c;
}

}  // namespace weft::test
