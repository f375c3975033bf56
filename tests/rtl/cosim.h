// Co-simulation of one program on the functional model (golden data), the cycle model (golden
// timing) and the Verilated RTL: the RTL's final DRAM image must equal the functional model's
// byte for byte, and its cycle count, per-module accounting and per-instruction completion
// cycles must equal the cycle model's. On a difference the report names the first
// instruction (in time) whose completion cycle differs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/rtl/rtl_engine.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/program_builder.h"

namespace weft::test {

/// What one co-simulated program gave.
struct Cosim {
  std::string mismatch;  // empty when everything agrees
  uint64_t cycles = 0;   // the cycle model's count
  uint64_t rtl_cycles = 0;
  sim::cycle::CycleStats cycle_stats;
  driver::rtl::RtlRunResult rtl;
};

/// Runs `p` on all three engines (each keeps its on-chip state, as hardware does).
Cosim cosimulate(const Program& p, sim::FunctionalSim& functional, sim::cycle::CycleSim& cycle,
                 driver::rtl::RtlEngine& rtl);

/// The RTL engine of a shipped configuration on a platform (`sim` by default), one per process,
/// configuration and platform (its buffers persist between programs).
driver::rtl::RtlEngine& rtl_engine(const std::string& config, const std::string& platform = "sim");

}  // namespace weft::test
