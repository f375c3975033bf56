// Checks of one register run; see run_checks.h.
#include "tests/simulator/systemc/run_checks.h"

#include <gtest/gtest.h>

#include "hardware/isa/registers.h"

namespace weft::test {

namespace reg = isa::reg;
using sc_core::sc_time;

sc_time cycles_times_period(uint64_t cycles, const sc_time& period) {
  return sc_time::from_value(period.value() * cycles);
}

void expect_run_matches(const RegisterRun& r, const sim::systemc::Accelerator& acc,
                        const sim::cycle::CycleStats& s, bool timed) {
  EXPECT_EQ(r.error, 0u) << acc.error_detail();
  EXPECT_EQ(r.cycles, s.cycles);
  EXPECT_EQ(r.elapsed(), timed ? cycles_times_period(s.cycles, acc.clock_period()) : sc_time())
      << "interrupt " << r.elapsed() << " after ap_start, for " << s.cycles << " cycles of "
      << acc.clock_period();
  const sim::cycle::ModuleCycles* m[3] = {&s.load, &s.compute, &s.store};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.busy[i], m[i]->busy) << "module " << i;
    EXPECT_EQ(r.stall[i], m[i]->total() - m[i]->busy - m[i]->idle) << "module " << i;
  }
  EXPECT_EQ(r.control_at_irq, reg::kApDone | reg::kApIdle | reg::kApReady);
  EXPECT_EQ(r.control_after, reg::kApIdle) << "ap_done must clear on read";
  EXPECT_TRUE(r.irq_low_after_clear) << "writing 1 to 0x0C must clear the interrupt";
}

}  // namespace weft::test
