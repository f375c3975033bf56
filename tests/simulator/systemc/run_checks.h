// The checks every SystemC timing test makes of one run through the registers against the
// bare cycle model's statistics of the same program.
#pragma once

#include <cstdint>
#include <systemc>

#include "simulator/cycle/cycle_stats.h"
#include "simulator/systemc/accelerator.h"
#include "tests/simulator/systemc/test_platform.h"

namespace weft::test {

/// `cycles` x `period`, exactly.
sc_core::sc_time cycles_times_period(uint64_t cycles, const sc_core::sc_time& period);

/// No error; the interrupt `cycles` x the clock period after ap_start (timed) or at it
/// (untimed); the cycle and busy/stall counters of `s`; ap_done set, then cleared by the read;
/// the interrupt cleared by writing 1 to the status register.
void expect_run_matches(const RegisterRun& r, const sim::systemc::Accelerator& acc,
                        const sim::cycle::CycleStats& s, bool timed);

}  // namespace weft::test
