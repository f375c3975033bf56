// `--config FILE` as a user gives it to the `weft` binary (docs/codesign.md): every verb that
// takes a configuration name takes a configuration file through the one place a name becomes a
// configuration (isa::layout_for), and `--platform FILE` a platform; a bad file is exit code 1
// with a message naming the file and field, and nothing else.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"
#include "tests/support/test_configs.h"

namespace weft::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class ConfigFileCli : public CliFixture {
 protected:
  const std::string config_ = test_config_file();
};

TEST_F(ConfigFileCli, ConfigShowReadsAFile) {
  const CliResult r = weft("config show " + config_ + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["name"], "b2x8x8");
  EXPECT_EQ(j["gemm"]["batch"], 2);
  EXPECT_EQ(j["options"], nlohmann::json::array({"store_requant"}));
  EXPECT_THAT(weft("config show " + config_).out, HasSubstr("hardware options: store_requant"));
}

TEST_F(ConfigFileCli, DenseRunsOnTheFunctionalAndCycleEnginesOfAFile) {
  for (const char* engine : {"functional", "cycle"}) {
    const CliResult r =
        weft(std::string("run dense --M 32 --N 32 --K 32 --config ") + config_ + " --engine " + engine);
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = json_of(r);
    EXPECT_EQ(j["config"], "b2x8x8");
    EXPECT_EQ(j["mismatches"], 0) << engine;
  }
}

// A network, not just one operator: a small ResNet of the file's batch (2) compiled for its GEMM
// shape runs on the accelerator (all but the host-side MACs) bit-exact with the int8 reference
// on both engines; the cycle engine also counts its cycles.
TEST_F(ConfigFileCli, NetworkRunsBitExactOnTheFunctionalAndCycleEnginesOfAFile) {
  for (const char* engine : {"functional", "cycle"}) {
    const CliResult r = weft(std::string("run resnet18 --batch 2 --image 32 --width 16 --stages 1 "
                                         "--classes 10 --tune 1 --knob-cache '' --check --json "
                                         "--config ") +
                             config_ + " --engine " + engine);
    ASSERT_EQ(r.code, 0) << engine << ": " << r.err;
    const nlohmann::json j = json_of(r);
    EXPECT_EQ(j["config"], "b2x8x8");
    EXPECT_TRUE(j["check"]["bit_exact_with_int8_reference"].get<bool>()) << engine;
    EXPECT_GT(j["accel_mac_fraction"].get<double>(), 0.99) << engine;
    if (std::string(engine) == "cycle") {
      EXPECT_GT(j["accel_cycles"].get<uint64_t>(), 0u);
    }
  }
}

// The shipped configurations are data files now, read like a user's: `vta` named by its file
// gives exactly the cycles it gave when its numbers were written in C++ (ResNet-18, batch 1,
// the default tuning, no knob cache: docs/graph.md's 7,493,672).
TEST_F(ConfigFileCli, TheShippedVtaFileKeepsResNet18sCycleCount) {
  const CliResult r = weft(std::string("run resnet18 --batch 1 --platform sim --engine cycle --json "
                                       "--knob-cache '' --config ") +
                           WEFT_SOURCE_DIR + "/hardware/isa/configs/vta.json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["config"], "vta");
  EXPECT_EQ(j["accel_cycles"].get<uint64_t>(), 7493672u);
}

TEST_F(ConfigFileCli, PlatformFilesAndConfigurationPlatformsChangeTheTiming) {
  nlohmann::json c = nlohmann::json::parse(slurp(config_));
  c["name"] = "b2x8x8_slow";
  c["platform"] = {{"name", "slow"},        {"axi_data_bits", 64},
                   {"read_latency", 200},   {"write_latency", 100},
                   {"max_outstanding_reads", 1}, {"max_outstanding_writes", 1},
                   {"max_burst_beats", 16}, {"clock_mhz", 100}};
  std::ofstream(path("slow.json")) << c.dump(2);
  const std::string dense = "run dense --M 32 --N 32 --K 32 --vthreads 1 --config " + path("slow.json");
  const CliResult sim = weft(dense);
  const CliResult slow = weft(dense + " --platform " + path("slow.json"));
  ASSERT_EQ(sim.code, 0) << sim.err;
  ASSERT_EQ(slow.code, 0) << slow.err;
  EXPECT_EQ(json_of(slow)["platform"], "slow");
  EXPECT_GT(json_of(slow)["cycles"].get<int64_t>(), json_of(sim)["cycles"].get<int64_t>());
}

// The store_requant option (the file turns it on) takes the epilogue's clip (and a shift that
// comes last) off the compute module onto the STORE: the same convolution is correct on both
// engines with and without it, runs fewer ALU micro-ops with it (this operator adds its bias
// after the shift, so the SHRs and the ADD stay; MAX and MIN go) and takes fewer cycles.
TEST_F(ConfigFileCli, StoreRequantTakesTheEpilogueOffTheComputeModule) {
  nlohmann::json c = nlohmann::json::parse(slurp(config_));
  c["name"] = "b2x8x8_plain";
  c["options"] = nlohmann::json::object();
  std::ofstream(path("plain.json")) << c.dump(2);
  const std::string conv = "run conv2d --N 2 --H 8 --W 8 --IC 32 --OC 32 --K 1 --shift 18 --engine ";
  for (const char* engine : {"functional", "cycle"}) {
    for (const std::string& config : {config_, path("plain.json")}) {
      const CliResult r = weft(conv + engine + " --config " + config);
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(json_of(r)["correct"].get<bool>()) << engine << " " << config;
    }
  }
  const nlohmann::json on = json_of(weft(conv + "cycle --config " + config_));
  const nlohmann::json off = json_of(weft(conv + "cycle --config " + path("plain.json")));
  EXPECT_LT(on["device"]["alu_uops"].get<int64_t>(), off["device"]["alu_uops"].get<int64_t>());
  EXPECT_LT(on["cycles"].get<int64_t>(), off["cycles"].get<int64_t>());
}

TEST_F(ConfigFileCli, CompileEmitsForAFile) {
  const CliResult r = weft("compile dense --M 32 --N 32 --K 32 --config " + config_ + " --emit asm");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("GEMM"));
}

TEST_F(ConfigFileCli, TuneSearchesForAFile) {
  const CliResult r = weft("tune dense --M 32 --N 32 --K 32 --config " + config_ +
                           " --trials 4 --db " + path("db.jsonl"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(slurp(path("db.jsonl")), HasSubstr("b2x8x8"));
}

TEST_F(ConfigFileCli, RtlBuildSaysAShippedConfigurationIsBuiltIn) {
  const CliResult r = weft(std::string("rtl build --config ") + WEFT_SOURCE_DIR +
                           "/hardware/isa/configs/vta.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("its RTL is built in"));
}

TEST_F(ConfigFileCli, BadFilesAreExitCodeOneNamingTheFileAndField) {
  nlohmann::json c = nlohmann::json::parse(slurp(config_));
  c["block_in"] = 12;
  std::ofstream(path("bad.json")) << c.dump(2);
  const CliResult r = weft("run dense --M 32 --N 32 --K 32 --config " + path("bad.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("bad.json"), HasSubstr("block_in = 12 is not a power of two")));
  EXPECT_EQ(r.out, "");
  const CliResult missing = weft("run dense --M 32 --N 32 --K 32 --config " + path("none.json"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("cannot read configuration file"));
}

}  // namespace
}  // namespace weft::test
