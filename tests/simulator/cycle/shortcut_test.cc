// The cycle model's GEMM shortcuts (docs/microarchitecture.md, "Shortcuts") against the
// reference that steps every micro-op iteration through the scoreboard and the data path one
// by one: on every configuration and with every GEMM kernel the host can run, the two must
// give the same DRAM image, the same statistics (cycles, per-module accounting, DRAM traffic,
// counters) and the same timeline event for event (so the same start and completion cycle of
// every instruction). Programs: the random token-correct programs of the equivalence tests,
// random GEMM-heavy programs (tests/support/gemm_program.h), and hand-made corner cases where a
// wrong closed form would show: hazards at distance 1 and 2 across the iter_in and iter_out
// boundaries, a GEMM right after a reset of the same rows, factors of 0, empty loops.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/cycle/trace.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/functional_fixture.h"
#include "tests/support/gemm_program.h"
#include "tests/support/program_builder.h"
#include "tests/support/program_check.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using sim::cycle::CycleSim;
using sim::cycle::KernelIsa;
using sim::cycle::ModelOptions;

// Seeds per test; WEFT_SHORTCUT_SEEDS=N runs N instead (a longer soak, by hand).
uint64_t seeds(uint64_t fallback) {
  const char* env = std::getenv("WEFT_SHORTCUT_SEEDS");
  return env ? std::strtoull(env, nullptr, 10) : fallback;
}

// The kernels this host can run (generic always).
std::vector<KernelIsa> host_kernels() {
  std::vector<KernelIsa> v = {KernelIsa::kGeneric};
  for (KernelIsa k : {KernelIsa::kAvx2, KernelIsa::kAvx512Vnni}) {
    if (sim::cycle::host_supports(k)) v.push_back(k);
  }
  return v;
}

struct RunResult {
  std::vector<uint8_t> dram;
  std::string stats, trace, error;
  sim::VtaCounters counters;
};

RunResult run(CycleSim& sim, const Program& p) {
  RunResult r;
  r.dram = p.dram;
  sim::cycle::Trace trace;
  sim::cycle::RunOptions ro;
  ro.trace = &trace;
  try {
    const sim::cycle::CycleStats s = sim.run(r.dram, p.insn_offset, p.insn_count, ro);
    r.stats = sim::cycle::to_json(s).dump();
    r.counters = s.counters;
    r.trace = trace.to_json().dump();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// Runs `p` with the shortcuts and with the reference; returns false after a mismatch.
bool expect_same(const Program& p, CycleSim& fast, CycleSim& reference, const std::string& what) {
  const RunResult a = run(fast, p), b = run(reference, p);
  EXPECT_EQ(a.error, b.error) << what;
  EXPECT_EQ(a.stats, b.stats) << what;
  EXPECT_TRUE(a.counters == b.counters) << what;
  EXPECT_TRUE(a.trace == b.trace) << what << ": timelines differ";
  if (a.dram != b.dram) {
    size_t i = 0;
    while (i < a.dram.size() && a.dram[i] == b.dram[i]) ++i;
    ADD_FAILURE() << what << ": DRAM images differ first at byte " << i;
  }
  return !::testing::Test::HasFailure();
}

ModelOptions shortcuts(KernelIsa k) {
  ModelOptions m;
  m.kernel = k;
  return m;
}

ModelOptions reference() {
  ModelOptions m;
  m.shortcuts = false;
  m.kernel = KernelIsa::kGeneric;
  return m;
}

class ShortcutTest : public ::testing::TestWithParam<std::string> {
 protected:
  const isa::Layout& layout() const { return isa::layout_for(GetParam()); }
};

TEST_P(ShortcutTest, KernelIsaResolves) {
  for (KernelIsa k : host_kernels()) {
    CycleSim sim(layout(), isa::find_platform("sim"), shortcuts(k));
    // A kernel the shape has no fast version of falls back to generic, never to another set.
    EXPECT_TRUE(sim.kernel_isa() == k || sim.kernel_isa() == KernelIsa::kGeneric)
        << sim::cycle::kernel_isa_name(k);
  }
  CycleSim best(layout(), isa::find_platform("sim"));
  EXPECT_NE(best.kernel_isa(), KernelIsa::kAuto);
}

TEST_P(ShortcutTest, RandomProgramsMatchTheReference) {
  for (KernelIsa k : host_kernels()) {
    CycleSim fast(layout(), isa::find_platform("sim"), shortcuts(k));
    CycleSim ref(layout(), isa::find_platform("sim"), reference());
    for (uint64_t seed = 1; seed <= seeds(150); ++seed) {
      const std::string what = GetParam() + "/" + sim::cycle::kernel_isa_name(k) +
                               " random program seed " + std::to_string(seed);
      if (!expect_same(random_program(layout(), seed).program, fast, ref, what)) return;
    }
  }
}

TEST_P(ShortcutTest, GemmHeavyProgramsMatchTheReferenceAndFunctional) {
  for (KernelIsa k : host_kernels()) {
    CycleSim fast(layout(), isa::find_platform("sim"), shortcuts(k));
    CycleSim ref(layout(), isa::find_platform("sim"), reference());
    sim::FunctionalSim functional(layout());
    for (uint64_t seed = 1; seed <= seeds(120); ++seed) {
      const std::string what = GetParam() + "/" + sim::cycle::kernel_isa_name(k) +
                               " GEMM-heavy program seed " + std::to_string(seed);
      const Program p = random_gemm_program(layout(), seed);
      if (!expect_same(p, fast, ref, what)) return;
      std::vector<uint8_t> f = p.dram, c = p.dram;
      functional.run(f, p.insn_offset, p.insn_count);
      fast.run(c, p.insn_offset, p.insn_count);
      if (f != c) {
        ADD_FAILURE() << what << ": the cycle model's image differs from the functional model's";
        return;
      }
    }
  }
}

// The GEMM-heavy programs are race-free and balanced (the model's data-at-start premise,
// docs/microarchitecture.md, "Shortcuts"), by the static protocol checker.
TEST_P(ShortcutTest, GemmHeavyProgramsAreRaceFree) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const ProtocolReport r = check_protocol(random_gemm_program(layout(), seed));
    ASSERT_TRUE(r.ok()) << GetParam() << " seed " << seed << ": " << r.problems.front();
  }
}

// The generator's programs really are GEMM-heavy and hit the stalls the shortcuts must count.
TEST_P(ShortcutTest, GemmHeavyProgramsCoverHazardsAndLongGemms) {
  CycleSim sim(layout(), isa::find_platform("sim"));
  uint64_t hazard = 0, uops = 0, programs_with_hazards = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Program p = random_gemm_program(layout(), seed);
    const sim::cycle::CycleStats s = sim.run(p.dram, p.insn_offset, p.insn_count);
    hazard += s.compute.stall_hazard;
    uops += s.gemm_uops;
    programs_with_hazards += s.compute.stall_hazard > 0;
  }
  EXPECT_GT(uops, 40u * 500u);
  EXPECT_GT(programs_with_hazards, 5u);
  EXPECT_LT(programs_with_hazards, 40u);
  EXPECT_GT(hazard, 0u);
}

// Hand-made corner cases: each program is one GEMM (after a reset of its rows) with the given
// micro-op destinations and loops, run with the reference and the shortcuts.
struct Corner {
  const char* name;
  std::vector<int64_t> dst;  // micro-op dst rows (src = wgt = micro-op position)
  Loops loops;
  bool reset = false;  // the GEMM under test is itself a reset GEMM
};

std::vector<Corner> corners() {
  std::vector<Corner> v;
  auto add = [&](const char* name, std::vector<int64_t> dst, int64_t io, int64_t ii, int64_t dfo,
                 int64_t dfi, int64_t wfo = 1, int64_t wfi = 1, bool reset = false) {
    Corner c{name, std::move(dst), {}, reset};
    c.loops.iter_out = io;
    c.loops.iter_in = ii;
    c.loops.dst_out = dfo;
    c.loops.dst_in = dfi;
    c.loops.src_out = 1;
    c.loops.src_in = 2;
    c.loops.wgt_out = wfo;
    c.loops.wgt_in = wfi;
    v.push_back(std::move(c));
  };
  add("one micro-op, reduction over iter_in", {3}, 2, 6, 1, 0);
  add("one micro-op, new row each iteration", {3}, 3, 5, 5, 1);
  add("distance 1 inside a block", {0, 0, 1, 2}, 2, 2, 4, 0);
  add("distance 2 inside a block", {0, 1, 0, 2}, 2, 2, 4, 0);
  add("distance 3: no hazard", {0, 1, 2, 0, 1, 2}, 2, 3, 3, 0);
  add("distance 2 across iter_in", {0, 1}, 2, 4, 2, 0);
  add("distance 1 across iter_in", {0, 1}, 2, 4, 5, 1);
  add("distance 1 across iter_in, shifted rows", {1, 5}, 1, 4, 0, 4);
  add("distance 2 across iter_in, shifted rows", {0, 4, 9}, 1, 4, 0, 4);
  add("distance 1 across iter_out only", {0, 1, 2, 9}, 3, 2, 10, 1);
  add("distance 2 across iter_out only", {0, 1, 2, 9}, 3, 2, 3, 1);
  add("no hazard across boundaries", {0, 1, 2, 3}, 3, 3, 12, 4);
  add("three micro-ops, reuse across iter_out", {0, 1, 2}, 4, 1, 0, 0);
  add("weights reused across iter_out", {0, 1, 2, 3}, 4, 3, 12, 4, 0, 1);
  add("weights reused across iter_in", {0, 1, 2, 3}, 4, 3, 12, 4, 1, 0);
  add("weights reused across both loops", {0, 1, 2, 3}, 4, 3, 12, 4, 0, 0);
  add("iter_out 0", {0, 1}, 0, 3, 2, 1);
  add("iter_in 0", {0, 1}, 3, 0, 2, 1);
  add("reset GEMM with repeats", {0, 0, 1}, 2, 3, 1, 0, 1, 1, true);
  return v;
}

Program corner_program(const isa::Layout& l, const Corner& c) {
  ProgramBuilder b(l);
  std::vector<int8_t> bytes(static_cast<size_t>(64 * l.inp_elem_bytes));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<int8_t>(i * 37 + 11);
  const int64_t inp = b.add_int8(isa::MemType::kInp, bytes);
  std::vector<int8_t> w(static_cast<size_t>(64 * l.wgt_elem_bytes));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(i * 53 + 7);
  const int64_t wgt = b.add_int8(isa::MemType::kWgt, w);
  std::vector<isa::Uop> uops = {{0, 0, 0}};  // micro-op 0: the reset of 64 rows
  for (size_t k = 0; k < c.dst.size(); ++k) {
    uops.push_back({c.dst[k], static_cast<int64_t>(k), static_cast<int64_t>(k)});
  }
  const int64_t u = b.add_uops(uops);
  const int64_t out = b.alloc(isa::MemType::kOut, 64);
  b.load_1d(isa::MemType::kInp, 0, inp, 64);
  b.load_1d(isa::MemType::kWgt, 0, wgt, 64, kPushNext);
  b.load_1d(isa::MemType::kUop, 0, u, static_cast<int64_t>(uops.size()));
  Loops all;
  all.iter_in = 64;
  all.dst_in = 1;
  b.gemm_reset(0, 1, all, kPopPrev);  // then, at once, the GEMM under test on the same rows
  const int64_t end = 1 + static_cast<int64_t>(c.dst.size());
  if (c.reset) {
    b.gemm_reset(1, end, c.loops);
  } else {
    b.gemm(1, end, c.loops);
  }
  b.gemm(1, end, c.loops, kPushNext);  // and once more, back to back
  b.store(0, out, 1, 64, 64, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  return b.build();
}

TEST_P(ShortcutTest, CornerCasesMatchTheReference) {
  for (KernelIsa k : host_kernels()) {
    CycleSim fast(layout(), isa::find_platform("sim"), shortcuts(k));
    CycleSim ref(layout(), isa::find_platform("sim"), reference());
    for (const Corner& c : corners()) {
      const std::string what = GetParam() + "/" + sim::cycle::kernel_isa_name(k) + ": " + c.name;
      if (!expect_same(corner_program(layout(), c), fast, ref, what)) return;
    }
  }
}

// Index errors keep the reference's message and the partial data it leaves on chip.
TEST_P(ShortcutTest, OutOfRangeGemmFallsBackToTheReference) {
  Corner c{"dst beyond the accumulator", {0, 1}, {}, false};
  c.loops.iter_out = 2;
  c.loops.dst_out = layout().acc_depth - 1;
  CycleSim fast(layout(), isa::find_platform("sim"));
  CycleSim ref(layout(), isa::find_platform("sim"), reference());
  const Program p = corner_program(layout(), c);
  const RunResult a = run(fast, p), b = run(ref, p);
  EXPECT_NE(a.error, "");
  EXPECT_EQ(a.error, b.error);
}

INSTANTIATE_TEST_SUITE_P(Configs, ShortcutTest, ::testing::ValuesIn(config_names()), ConfigName());

}  // namespace
}  // namespace weft::test
