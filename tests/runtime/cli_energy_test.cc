// Energy in `weft run` as a user sees it (docs/codesign.md, "Energy"): the "energy" object of
// dense, conv2d and network runs on the cycle engine, consistent with the run's own counts and
// cycles; `--energy FILE` replacing the table; per-node energies adding up to the network's;
// the table's energy line; and a bad table or an engine without counts as a named error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;

class EnergyCli : public CliFixture {
 protected:
  // The shipped table with the MAC's figure changed, as a file of this test.
  std::string table_with_mac(double pj) const {
    std::ifstream in(std::string(WEFT_SOURCE_DIR) + "/hardware/cost/tables/horowitz45.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["name"] = "mine";
    j["mac_int8"]["pj"] = pj;
    const std::string p = path("mine.json");
    std::ofstream(p) << j.dump(2);
    return p;
  }
  static double sum_of_components(const nlohmann::json& e) {
    double s = 0;
    for (const auto& [k, v] : e["components_uj"].items()) s += v.get<double>();
    return s;
  }
};

TEST_F(EnergyCli, DenseOnTheCycleEngineReportsItsEnergyFromItsCounts) {
  const CliResult r = weft("run dense --M 64 --N 64 --K 64 --config vta --engine cycle");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  ASSERT_TRUE(j.contains("energy")) << r.out;
  const nlohmann::json& e = j["energy"];
  const nlohmann::json& a = j["device"]["activity"];
  EXPECT_EQ(e["table"], "horowitz45");
  EXPECT_EQ(e["macs"], 64 * 64 * 64);  // 64 is a whole number of vta's 16-wide blocks
  EXPECT_EQ(a["macs"], 64 * 64 * 64);
  const double total = e["total_uj"].get<double>();
  EXPECT_NEAR(total, sum_of_components(e), 1e-9 * total);
  EXPECT_NEAR(e["pj_per_mac"].get<double>(), total * 1e6 / (64 * 64 * 64), 1e-9);
  EXPECT_NEAR(e["components_uj"]["dram"].get<double>(),
              (a["dram_read_bytes"].get<double>() + a["dram_write_bytes"].get<double>()) * 160e-6,
              1e-12);
  EXPECT_NEAR(e["components_uj"]["gemm"].get<double>(),
              (a["macs"].get<double>() * 0.25 + a["acc_adds"].get<double>() * 0.1) * 1e-6, 1e-12);
  // Power at the sim platform's 200 MHz over the run's cycles.
  EXPECT_NEAR(e["average_power_mw"].get<double>(),
              total * 1e6 * 200 / j["cycles"].get<double>() * 1e-3, 1e-9);
}

TEST_F(EnergyCli, EnergyFileReplacesTheTable) {
  const std::string mine = table_with_mac(0.5);
  const CliResult r =
      weft("run dense --M 64 --N 64 --K 64 --config vta --engine cycle --energy " + mine);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["energy"]["table"], "mine");
  const nlohmann::json& a = j["device"]["activity"];
  EXPECT_NEAR(j["energy"]["components_uj"]["gemm"].get<double>(),
              (a["macs"].get<double>() * 0.5 + a["acc_adds"].get<double>() * 0.1) * 1e-6, 1e-12);
}

TEST_F(EnergyCli, Conv2dOnTheCycleEngineReportsItsEnergy) {
  const CliResult r = weft("run conv2d --N 1 --H 8 --W 8 --IC 16 --OC 16 --K 3 --pad 1 "
                           "--config vta --engine cycle");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  ASSERT_TRUE(j.contains("energy"));
  EXPECT_GT(j["energy"]["total_uj"].get<double>(), 0);
  EXPECT_NEAR(j["energy"]["pj_per_useful_mac"].get<double>(),
              j["energy"]["total_uj"].get<double>() * 1e6 / j["macs"].get<double>(), 1e-9);
}

TEST_F(EnergyCli, TheFunctionalEngineCountsNothingToPrice) {
  const CliResult r = weft("run dense --M 16 --N 16 --K 16 --engine functional");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(json_of(r).contains("energy"));
  const CliResult bad = weft("run dense --M 16 --N 16 --K 16 --engine functional --energy " +
                             table_with_mac(0.5));
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("--energy needs an engine that counts"));
  EXPECT_EQ(bad.out, "");
}

TEST_F(EnergyCli, ABadTableIsANamedErrorBeforeAnyWork) {
  const std::string bad = path("bad.json");
  std::ofstream(bad) << R"({"name": "bad", "node_nm": 45, "vdd": 0.9, "process_source": "x"})";
  for (const std::string& verb :
       {std::string("run dense --M 16 --N 16 --K 16"), std::string("run resnet18 --image 32")}) {
    const CliResult r = weft(verb + " --energy " + bad);
    EXPECT_EQ(r.code, 1) << verb;
    EXPECT_THAT(r.err, HasSubstr("energy table '" + bad + "' ('bad'): missing field 'mac_int8'"))
        << verb;
    EXPECT_EQ(r.out, "") << verb;
  }
  const CliResult unknown = weft("run dense --M 16 --N 16 --K 16 --energy nosuch");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("unknown energy table 'nosuch'"));
}

TEST_F(EnergyCli, EnergyIsAnAcceleratorOption) {
  const CliResult r = weft("run dense --M 16 --N 16 --K 16 --target llvm --energy horowitz45");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--energy"));
  EXPECT_THAT(r.err, HasSubstr("with --target accel"));
}

TEST_F(EnergyCli, ANetworkReportsEnergyPerLayerThatAddsUpToItsTotal) {
  const std::string net = "run resnet18 --image 32 --width 16 --stages 1 --classes 10 --tune 1 "
                          "--knob-cache '' --config vta --engine cycle";
  const CliResult r = weft(net + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = json_of(r);
  ASSERT_TRUE(j.contains("energy"));
  double nodes = 0;
  int accel = 0;
  for (const auto& n : j["nodes"]) {
    if (n["engine"] != "accel") {
      EXPECT_FALSE(n.contains("energy"));
      continue;
    }
    ASSERT_TRUE(n.contains("energy")) << n["node"];
    nodes += n["energy"]["total_uj"].get<double>();
    ++accel;
  }
  EXPECT_GT(accel, 2);
  const double total = j["energy"]["total_uj"].get<double>();
  EXPECT_NEAR(total, nodes, 1e-9 * total);
  EXPECT_NEAR(total, sum_of_components(j["energy"]), 1e-9 * total);
  EXPECT_NEAR(j["energy"]["average_power_mw"].get<double>(),
              total * 1e6 * 200 / j["accel_cycles"].get<double>() * 1e-3, 1e-6);

  const CliResult table = weft(net);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("energy uJ"));
  EXPECT_THAT(table.out, HasSubstr("accelerator energy: "));
  EXPECT_THAT(table.out, HasSubstr("(table horowitz45, 45 nm)"));
}

}  // namespace
}  // namespace weft::test
