// The RTL of a configuration file (docs/codesign.md): tests/support/configs/b2x8x8.json, a
// configuration no model is built in for, runs on the rtl engine from the RTL plugin
// `weft rtl build` made (the rtl.config_file_build fixture, in $WEFT_RTL_CACHE) and
// co-simulates exactly like the shipped ones: random, GEMM-heavy and hand-written programs
// give the functional model's image and the cycle model's cycles, accounting and
// per-instruction completions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "driver/rtl/plugin.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "tests/rtl/cosim.h"
#include "tests/support/gemm_program.h"
#include "tests/support/random_program.h"
#include "tests/support/test_configs.h"

namespace weft::test {
namespace {

const std::string kConfig = test_config_file();

TEST(ConfigFileRtl, IsNotAShippedConfigurationAndRunsFromItsPlugin) {
  const isa::Layout& l = isa::layout_for(kConfig);
  for (const isa::HwConfig& s : isa::shipped_configs()) EXPECT_FALSE(isa::same_hardware(l.config, s));
  struct stat st;
  ASSERT_EQ(::stat(driver::rtl::rtl_plugin_path(l).c_str(), &st), 0)
      << "no plugin at " << driver::rtl::rtl_plugin_path(l) << " (the rtl.config_file_build test makes it)";
  EXPECT_NO_THROW(rtl_engine(kConfig));
}

// What the RTL's data paths cannot build is a named error before Verilator runs: a 1x1x4 GEMM
// has 1-byte INP elements (the RTL packs at most four elements in a beat).
TEST(ConfigFileRtl, ConfigurationsTheRtlCannotBuildAreNamed) {
  isa::HwConfig c = isa::layout_for(kConfig).config;
  c.name = "b1x1x4";
  c.log_batch = 0;
  c.log_block_in = 0;
  c.log_block_out = 2;
  c.inp_buf_bytes = 1024;  // shallow buffers keep the instruction fields within 128 bits
  c.wgt_buf_bytes = 1024;
  const isa::Layout l = isa::derive_layout(c);
  EXPECT_THAT([&] { driver::rtl::build_rtl_plugin(l); },
              ::testing::ThrowsMessage<UserError>(::testing::AllOf(
                  ::testing::HasSubstr("configuration 'b1x1x4'"),
                  ::testing::HasSubstr("INP elements (batch x block_in int8) of at least 4 bytes"))));
}

// The file turns the store_requant option on: most random STOREs requantize, and the RTL's
// store path must give the functional model's bytes.
TEST(ConfigFileRtl, RandomProgramsMatchCycleForCycle) {
  const isa::Layout& l = isa::layout_for(kConfig);
  ASSERT_TRUE(l.config.options.has(isa::HwOption::kStoreRequant));
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  int requantizing = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const RandomProgram rp = random_program(l, seed);
    for (uint64_t i = 0; i < rp.program.insn_count; ++i) {
      const isa::Insn insn = isa::decode_insn(
          l, rp.program.dram.data() + rp.program.insn_offset + i * isa::kInsnBytes, "random");
      requantizing += insn.op() == isa::Opcode::kStore && insn.y_pad_0 % 2 == 1;
    }
    const Cosim r = cosimulate(rp.program, f, c, rtl_engine(kConfig));
    ASSERT_TRUE(r.mismatch.empty()) << "seed " << seed << ":" << r.mismatch;
    ASSERT_GT(r.cycles, 0u);
  }
  EXPECT_GT(requantizing, 40);
}

TEST(ConfigFileRtl, GemmHeavyProgramsMatchCycleForCycle) {
  const isa::Layout& l = isa::layout_for(kConfig);
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Cosim r = cosimulate(random_gemm_program(l, seed), f, c, rtl_engine(kConfig));
    ASSERT_TRUE(r.mismatch.empty()) << "GEMM-heavy seed " << seed << ":" << r.mismatch;
  }
}

TEST(ConfigFileRtl, RandomProgramsMatchOnAnotherPlatform) {
  const isa::Layout& l = isa::layout_for(kConfig);
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("zcu104"));
  for (uint64_t seed = 101; seed <= 110; ++seed) {
    const Cosim r = cosimulate(random_program(l, seed).program, f, c, rtl_engine(kConfig, "zcu104"));
    ASSERT_TRUE(r.mismatch.empty()) << "zcu104 seed " << seed << ":" << r.mismatch;
  }
}

}  // namespace
}  // namespace weft::test
