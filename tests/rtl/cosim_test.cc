// Co-simulation of the RTL with the cycle model and the functional model (label `cosim`): the
// hand-counted programs of docs/microarchitecture.md and tests/simulator/cycle/timing_test.cc
// (72, 78, 88 and 135 cycles on gemm8x8/sim), then random token-correct programs on every
// configuration: byte-identical DRAM images with the functional model and the exact cycle
// count, accounting and per-instruction completion cycles of the cycle model.
#include "tests/rtl/cosim.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/spec.h"
#include "tests/support/gemm_program.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

// The timing tests' image: program at byte 0, micro-ops at byte 4096, random tensor data.
Program hand_program(const std::string& config, const std::string& text,
                     const std::vector<isa::Uop>& uops = {}) {
  const isa::Layout& l = isa::layout_for(config);
  const std::vector<isa::Insn> p = isa::parse_program(l, text, "test");
  const std::vector<uint8_t> bin = isa::encode_program(l, p);
  Program prog;
  prog.layout = &l;
  prog.dram.assign(64 << 10, 0);
  std::copy(bin.begin(), bin.end(), prog.dram.begin());
  for (size_t i = 0; i < uops.size(); ++i)
    isa::encode_uop(l, uops[i], &prog.dram[4096 + 4 * i], "uop");
  uint32_t x = 12345;
  for (size_t b = 8192; b < 16384; ++b)
    prog.dram[b] = static_cast<uint8_t>((x = x * 1664525 + 1013904223) >> 24);
  for (size_t b = 32768; b < 40960; ++b)
    prog.dram[b] = static_cast<uint8_t>((x = x * 1664525 + 1013904223) >> 24);
  prog.insn_count = p.size();
  return prog;
}

uint64_t cosim_cycles(const std::string& config, const std::string& text,
                      const std::vector<isa::Uop>& uops = {}) {
  const isa::Layout& l = isa::layout_for(config);
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  const Cosim r = cosimulate(hand_program(config, text, uops), f, c, rtl_engine(config));
  EXPECT_EQ(r.mismatch, "");
  return r.rtl_cycles;
}

TEST(CosimHand, SingleLoad72) {
  EXPECT_EQ(cosim_cycles("gemm8x8",
                         "LOAD INP dram_base=64 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
                         "FINISH pop_prev_dep\n"),
            72u);
}

TEST(CosimHand, SingleGemm78) {
  EXPECT_EQ(cosim_cycles("gemm8x8",
                         "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                         "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=3 dst_factor_out=3 "
                         "dst_factor_in=1\n"
                         "FINISH\n"),
            78u);
}

TEST(CosimHand, AccumulatorHazard88) {
  EXPECT_EQ(cosim_cycles("gemm8x8",
                         "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                         "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=3\n"
                         "FINISH\n"),
            88u);
}

TEST(CosimHand, LoadGemmStoreChain135) {
  EXPECT_EQ(
      cosim_cycles("gemm8x8",
                   "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                   "LOAD INP dram_base=128 y_size=1 x_size=1 x_stride=1\n"
                   "LOAD WGT dram_base=192 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
                   "GEMM pop_prev_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 push_next_dep\n"
                   "STORE OUT dram_base=256 y_size=1 x_size=1 x_stride=1 pop_prev_dep "
                   "push_prev_dep\n"
                   "FINISH pop_next_dep\n"),
      135u);
}

// LOADs of many short rows, one burst each: alone, the cycle model grants a run of them
// without a tick per burst (stream_bursts); side by side, the two DMAs contend for the read
// channel burst by burst. Both must stay cycle-exact.
TEST(CosimHand, RowStreamingLoadsMatchCycleForCycle) {
  for (const char* config : {"vta", "gemm8x8"}) {
    SCOPED_TRACE(config);
    EXPECT_GT(cosim_cycles(config,
                           "LOAD INP dram_base=512 y_size=48 x_size=1 x_stride=3 push_next_dep\n"
                           "FINISH pop_prev_dep\n"),
              48u);
    EXPECT_GT(cosim_cycles(config,
                           "LOAD INP dram_base=512 y_size=40 x_size=1 x_stride=3 push_next_dep\n"
                           "LOAD ACC dram_base=128 y_size=12 x_size=1 x_stride=2\n"
                           "FINISH pop_prev_dep\n"),
              40u);
  }
}

// The report itself: against a cycle model of another platform the RTL's timing differs, and
// the report names the first instruction whose completion differs, with both cycles.
TEST(CosimReport, NamesTheFirstInstructionWhoseCompletionDiffers) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim other(l, isa::find_platform("zcu104"));  // read latency 64, not 32
  const Cosim r =
      cosimulate(hand_program("gemm8x8",
                              "LOAD INP dram_base=64 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
                              "FINISH pop_prev_dep\n"),
                 f, other, rtl_engine("gemm8x8"));
  EXPECT_NE(r.mismatch.find("cycles: cycle model " + std::to_string(r.cycles) + ", rtl 72"),
            std::string::npos)
      << r.mismatch;
  EXPECT_NE(r.mismatch.find("first instruction whose completion differs: instruction 0 (LOAD "
                            "INP)"),
            std::string::npos)
      << r.mismatch;
  EXPECT_EQ(r.mismatch.find("images differ"), std::string::npos) << r.mismatch;
}

class CosimRandom : public ::testing::TestWithParam<std::string> {};

TEST_P(CosimRandom, HundredRandomProgramsMatchCycleForCycle) {
  const isa::Layout& l = isa::layout_for(GetParam());
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  int matched = 0;
  // WEFT_COSIM_SEEDS=N runs N seeds instead of 100 (a longer soak, by hand).
  const char* env = std::getenv("WEFT_COSIM_SEEDS");
  const uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : 100;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const RandomProgram rp = random_program(l, seed);
    const Cosim r = cosimulate(rp.program, f, c, rtl_engine(GetParam()));
    if (!r.mismatch.empty()) {
      ADD_FAILURE() << GetParam() << " seed " << seed << ":" << r.mismatch;
      break;
    }
    ++matched;
  }
  RecordProperty("matched", matched);
}

// The zcu104 platform: other latencies (64/32) and 16 outstanding bursts each way.
TEST_P(CosimRandom, RandomProgramsMatchOnAnotherPlatform) {
  const isa::Layout& l = isa::layout_for(GetParam());
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("zcu104"));
  for (uint64_t seed = 101; seed <= 130; ++seed) {
    const RandomProgram rp = random_program(l, seed);
    const Cosim r = cosimulate(rp.program, f, c, rtl_engine(GetParam(), "zcu104"));
    if (!r.mismatch.empty()) {
      ADD_FAILURE() << GetParam() << "/zcu104 seed " << seed << ":" << r.mismatch;
      break;
    }
  }
}

// Long GEMMs, where the cycle model takes its shortcuts (docs/microarchitecture.md,
// "Shortcuts"): random GEMM-heavy programs with hazards inside and across loop blocks, factors
// of 0, resets, ALU and LOAD ACC between GEMMs and concurrent loads.
TEST_P(CosimRandom, GemmHeavyProgramsMatchCycleForCycle) {
  const isa::Layout& l = isa::layout_for(GetParam());
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  const char* env = std::getenv("WEFT_COSIM_GEMM_SEEDS");
  const uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : 25;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const Cosim r = cosimulate(random_gemm_program(l, seed), f, c, rtl_engine(GetParam()));
    if (!r.mismatch.empty()) {
      ADD_FAILURE() << GetParam() << " GEMM-heavy seed " << seed << ":" << r.mismatch;
      break;
    }
  }
}

// The benchmark's GEMM-heavy program (scripts/bench: micro-op k accumulates INP[k + 16 i + j]
// . WGT[256 s + 16 i + j] into ACC[k]) at a size the RTL runs in a moment: 64 micro-ops x 8 x
// 8, four GEMMs alternating two weight sets, after a reset GEMM.
TEST_P(CosimRandom, BenchmarkShapedGemmsMatchCycleForCycle) {
  const isa::Layout& l = isa::layout_for(GetParam());
  const int64_t uops = 64, taps = 8;
  ProgramBuilder b(l);
  std::vector<uint8_t> bytes;
  uint32_t x = 99;
  auto random = [&](int64_t n) {
    bytes.assign(static_cast<size_t>(n), 0);
    for (uint8_t& v : bytes) v = static_cast<uint8_t>((x = x * 1664525 + 1013904223) >> 24);
    return bytes;
  };
  const int64_t inp_rows = uops + taps * taps - 1, wgt_rows = 2 * taps * taps;
  const int64_t inp = b.alloc(isa::MemType::kInp, inp_rows);
  b.put_bytes(isa::MemType::kInp, inp, random(inp_rows * l.inp_elem_bytes));
  const int64_t wgt = b.alloc(isa::MemType::kWgt, wgt_rows);
  b.put_bytes(isa::MemType::kWgt, wgt, random(wgt_rows * l.wgt_elem_bytes));
  std::vector<isa::Uop> u;
  for (int64_t s = 0; s < 2; ++s) {
    for (int64_t k = 0; k < uops; ++k) u.push_back({k, k, s * taps * taps});
  }
  const int64_t ue = b.add_uops(u);
  const int64_t out = b.alloc(isa::MemType::kOut, uops);
  b.load_1d(isa::MemType::kUop, 0, ue, 2 * uops);
  b.load_1d(isa::MemType::kInp, 0, inp, inp_rows);
  b.load_1d(isa::MemType::kWgt, 0, wgt, wgt_rows, kPushNext);
  b.gemm_reset(0, uops, {}, kPopPrev);
  Loops lp;
  lp.iter_out = lp.iter_in = taps;
  lp.src_out = lp.wgt_out = taps;
  lp.src_in = lp.wgt_in = 1;
  for (int g = 0; g < 4; ++g)
    b.gemm((g % 2) * uops, (g % 2 + 1) * uops, lp, g == 3 ? kPushNext : Deps{});
  b.store(0, out, 1, uops, uops, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  const Cosim r = cosimulate(b.build(), f, c, rtl_engine(GetParam()));
  EXPECT_EQ(r.mismatch, "");
  EXPECT_EQ(r.cycle_stats.gemm_uops, uint64_t(uops + 4 * uops * taps * taps));
  EXPECT_GT(r.cycle_stats.utilization(), 0.85);
}

INSTANTIATE_TEST_SUITE_P(Configs, CosimRandom, ::testing::Values("tiny", "gemm8x8", "vta"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace weft::test
