// Test support: a seeded generator of random, token-correct programs for comparing the engines,
// and a helper that runs one program on both the functional and the cycle model. Programs are
// built in VTA's virtual-thread style: each of 1-4 virtual threads owns disjoint slices of the
// UOP/INP/WGT/ACC buffers and of the DRAM output, and its load, compute and store stages are
// chained by the four token queues so that no buffer element or DRAM byte is ever accessed by
// two modules without a token ordering them, whatever the timing (program_check.h proves it
// for each generated program). Every instruction kind appears across a few dozen seeds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/common/stats.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/program_builder.h"

namespace weft::test {

/// Knobs of the random program generator.
struct RandomProgramOptions {
  int min_threads = 1;  // virtual threads, 1..4
  int max_threads = 4;
  int max_iterations = 3;   // load/compute/store stages per virtual thread
  int max_compute_ops = 4;  // GEMM/ALU instructions per compute stage
};

/// A generated program and what it contains.
struct RandomProgram {
  Program program;
  uint64_t seed = 0;
  int threads = 0;  // virtual threads
  int stages = 0;   // load/compute/store stages in all (threads x iterations)
  /// How often each feature occurs ("load.inp", "pad.uop", "alu.SHR.imm", "gemm.loops2", ...);
  /// random_program_features() lists every name the generator can report.
  std::map<std::string, int> coverage;
};

/// Generates a program for `layout` from `seed` (same seed, same bytes). The program reads only
/// on-chip data it loads itself, keeps every index in range, uses at most threads + 1 tokens
/// per queue, pops every token it pushes and ends with a FINISH that pops the token of the
/// last STORE.
RandomProgram random_program(const isa::Layout& layout, uint64_t seed,
                             const RandomProgramOptions& options = {});

/// Every feature name random_program() reports in RandomProgram::coverage.
const std::vector<std::string>& random_program_features();

/// What running one program on both models gave.
struct BothModelsResult {
  std::vector<uint8_t> functional_dram;  // final DRAM images
  std::vector<uint8_t> cycle_dram;
  sim::VtaCounters functional_counters;
  sim::cycle::CycleStats cycle_stats;
};

/// Runs a copy of the program's image on each model (their buffers persist between runs).
/// Exceptions from either model propagate.
BothModelsResult run_both(const Program& p, sim::FunctionalSim& functional,
                          sim::cycle::CycleSim& cycle);
/// The same on fresh models of the program's layout and the given platform.
BothModelsResult run_both(const Program& p, const isa::Platform& platform);

}  // namespace weft::test
