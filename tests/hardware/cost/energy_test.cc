// The energy model on runs of the cycle model: a small program whose action counts are worked
// out by hand from its instructions (docs/codesign.md, "Energy"), priced by the shipped table
// component by component; the counts against the cycle model's other counters on random
// programs, and the RTL harness's counts (from the program) equal to the cycle model's.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/rtl/core_stats.h"
#include "hardware/cost/energy.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "simulator/cycle/cycle_sim.h"
#include "tests/support/random_program.h"

namespace weft::cost {
namespace {

using sim::cycle::CycleStats;

// gemm8x8 (INP and WGT elements 64 bytes, accumulator rows 256, OUT 64, 64 lanes, 512 MACs
// per micro-op): micro-op 0 is {acc 0, inp 0, wgt 0}, micro-op 1 {acc 0, src acc 1}.
constexpr const char* kProgram =
    "LOAD UOP dram_base=1024 y_size=1 x_size=2 x_stride=2\n"
    "LOAD INP dram_base=128 y_size=1 x_size=1 x_stride=1 x_pad_1=1\n"
    "LOAD WGT dram_base=192 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
    "GEMM reset_reg pop_prev_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
    "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=1\n"
    "ALU SHR uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 use_imm imm=2\n"
    "ALU ADD uop_bgn=1 uop_end=2 iter_out=1 iter_in=1\n"
    "ALU MUL uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 use_imm imm=3 push_next_dep\n"
    "STORE OUT dram_base=256 y_size=1 x_size=1 x_stride=1 pop_prev_dep push_prev_dep\n"
    "FINISH pop_next_dep\n";

CycleStats run_program(const isa::Layout& l, std::vector<isa::Insn>* program = nullptr) {
  const std::vector<isa::Insn> p = isa::parse_program(l, kProgram, "test");
  std::vector<uint8_t> img(64 << 10, 0);
  const std::vector<uint8_t> bin = isa::encode_program(l, p);
  std::copy(bin.begin(), bin.end(), img.begin());
  isa::encode_uop(l, {0, 0, 0}, &img[4096], "uop");
  isa::encode_uop(l, {0, 1, 0}, &img[4100], "uop");
  if (program) *program = p;
  return sim::cycle::CycleSim(l, isa::find_platform("sim")).run(img, 0, p.size());
}

TEST(Energy, ActionCountsOfASmallProgramFollowFromItsInstructions) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const sim::Activity& a = run_program(l).activity;
  EXPECT_EQ(a.macs, 2u * 512);       // the second GEMM's two iterations; the reset has none
  EXPECT_EQ(a.acc_adds, 2u * 64);    // one per lane and iteration
  EXPECT_EQ(a.alu_ops, 2u * 64);     // SHR and ADD
  EXPECT_EQ(a.alu_muls, 64u);        // MUL
  EXPECT_EQ(a.uop.write_bytes, 8u);  // two micro-ops
  EXPECT_EQ(a.uop.read_bytes, 6u * 4);  // 1 + 2 GEMM iterations, 3 ALU
  EXPECT_EQ(a.inp.write_bytes, 2u * 64);  // one element and its padding
  EXPECT_EQ(a.inp.read_bytes, 2u * 64);
  EXPECT_EQ(a.wgt.write_bytes, 64u);
  EXPECT_EQ(a.wgt.read_bytes, 2u * 64);
  // Reads: GEMM 2 rows, SHR 1, ADD 2 (its source), MUL 1, STORE 1. Writes: reset 1, GEMM 2,
  // three ALU 1 each.
  EXPECT_EQ(a.acc.read_bytes, 7u * 256);
  EXPECT_EQ(a.acc.write_bytes, 6u * 256);
  EXPECT_EQ(a.dram_read_bytes, 10u * 16 + 8 + 64 + 64);  // instructions, UOP, INP, WGT
  EXPECT_EQ(a.dram_write_bytes, 64u);
  EXPECT_EQ(a.queue_bytes, 10u * 64);  // 16 bytes in and out of the fetch FIFO and a cmd queue
  EXPECT_EQ(a.token_ops, 6u);
  // Reset: the result row; GEMM: INP, WGT and two rows; ALU: two operand rows and the result.
  EXPECT_EQ(a.pipeline_bytes, 256u + 2 * (64 + 64 + 512) + 3 * 768);
}

TEST(Energy, TheShippedTablePricesEachComponentFromTheCounts) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const CycleStats s = run_program(l);
  const EnergyTable& t = shipped_energy_tables().front();
  ASSERT_EQ(t.name, "horowitz45");
  const Energy e = energy_of(t, l, s.activity, s.cycles);
  // Horowitz's 64-bit accesses of 32 KB (20 pJ) and 1 MB (100 pJ), per byte, on a power law.
  const double kb32 = 2.5;
  auto between = [](double kib) { return 2.5 * std::pow(5.0, std::log2(kib / 32) / 5); };
  EXPECT_DOUBLE_EQ(e.of(Component::kGemm), 1024 * 0.25 + 128 * 0.1);
  EXPECT_DOUBLE_EQ(e.of(Component::kAlu), 128 * 0.1 + 64 * 3.1);
  EXPECT_DOUBLE_EQ(e.of(Component::kUopSram), (24 + 8) * kb32);  // uop 32 KiB
  EXPECT_DOUBLE_EQ(e.of(Component::kInpSram), (128 + 128) * kb32);
  EXPECT_NEAR(e.of(Component::kWgtSram), 192 * between(256), 1e-9);  // 256 KiB
  EXPECT_NEAR(e.of(Component::kAccSram), (7 + 6) * 256 * between(128), 1e-9);
  EXPECT_DOUBLE_EQ(e.of(Component::kDram), (296 + 64) * 160.0);
  // Token queues of 256: a 9-bit occupancy counter, 2 bytes per push or pop.
  EXPECT_DOUBLE_EQ(e.of(Component::kQueues), (640 + 6 * 2) * 0.25);
  EXPECT_DOUBLE_EQ(e.of(Component::kPipeline), 3840 * 0.25);
  EXPECT_EQ(e.macs, 1024u);
  EXPECT_EQ(e.cycles, s.cycles);
  EXPECT_DOUBLE_EQ(e.on_chip_pj(), e.total_pj() - e.of(Component::kDram));
  // mW = pJ / (cycles / MHz) * 1e-3 at the sim platform's 200 MHz.
  EXPECT_DOUBLE_EQ(e.average_power_mw(200), e.total_pj() * 200 / double(s.cycles) * 1e-3);

  const nlohmann::ordered_json j = to_json(e, t, 200, 512);
  EXPECT_EQ(j["table"], "horowitz45");
  EXPECT_DOUBLE_EQ(j["total_uj"].get<double>(), e.total_pj() * 1e-6);
  EXPECT_DOUBLE_EQ(j["pj_per_mac"].get<double>(), e.total_pj() / 1024);
  EXPECT_DOUBLE_EQ(j["pj_per_useful_mac"].get<double>(), e.total_pj() / 512);
  EXPECT_DOUBLE_EQ(j["components_uj"]["dram"].get<double>(), 360 * 160.0 * 1e-6);
  EXPECT_EQ(j["components_uj"].size(), size_t(kComponents));
}

TEST(Energy, TheRtlHarnessCountsTheSameActivityFromTheProgram) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  std::vector<isa::Insn> program;
  const CycleStats s = run_program(l, &program);
  CycleStats from_program;
  driver::rtl::count_program(l, program, from_program);
  EXPECT_EQ(from_program.activity, s.activity);
}

// On random programs of every instruction kind (padding, ACC_8BIT, both ALU operand kinds),
// the counts agree with the counters the cycle model already had.
TEST(Energy, ActivityAgreesWithTheCycleModelsOtherCounters) {
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    const uint64_t lanes = uint64_t(l.config.batch()) * l.config.block_out();
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      const test::RandomProgram rp = test::random_program(l, seed);
      const CycleStats s = test::run_both(rp.program, isa::find_platform("sim")).cycle_stats;
      const sim::Activity& a = s.activity;
      const sim::VtaCounters& c = s.counters;
      SCOPED_TRACE(std::string(config) + " seed " + std::to_string(seed));
      EXPECT_EQ(a.dram_read_bytes, s.insn_fetch_nbytes + c.uop_load_nbytes + c.inp_load_nbytes +
                                       c.wgt_load_nbytes + c.acc_load_nbytes);
      EXPECT_EQ(a.dram_write_bytes, c.out_store_nbytes);
      EXPECT_EQ(a.macs, c.gemm_counter * uint64_t(l.macs_per_uop()));
      EXPECT_EQ(a.acc_adds, c.gemm_counter * lanes);
      EXPECT_EQ(a.alu_ops + a.alu_muls, c.alu_counter * lanes);
      EXPECT_EQ(a.uop.read_bytes, (s.gemm_uops + s.alu_uops) * 4);
      EXPECT_EQ(a.queue_bytes, c.insn_count * 64);
      EXPECT_GE(a.inp.write_bytes, c.inp_load_nbytes);  // padding adds to what DRAM gave
      EXPECT_GE(a.acc.write_bytes, c.acc_load_nbytes);
    }
  }
}

}  // namespace
}  // namespace weft::cost
