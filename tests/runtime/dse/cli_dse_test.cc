// `weft dse` as a user runs it: a tiny sweep end to end (two dense layers on three variants of
// `tiny`, one of them invalid), its JSON, table and picture; a rerun that measures nothing new;
// and bad inputs refused before any point runs, with nothing written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/cli_fixture.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;

class DseCli : public CliFixture {
 protected:
  std::string sweep() const {
    const std::string f = path("sweep.json");
    std::ofstream(f) << R"({"base": "tiny", "params": {"block_out": [4, 8]},
                           "points": [{"block_in": 3}]})";
    return f;
  }
  std::string run_args() const {
    return "dse layers --layers dense:32x32x32,dense:16x64x32 --sweep " + sweep() +
           " --jobs 2 --db " + path("dse.jsonl") + " --json " + path("dse.json") + " --svg " +
           path("dse.svg");
  }
};

const nlohmann::json* find_point(const nlohmann::json& s, const std::string& name) {
  for (const auto& p : s["points"])
    if (p["name"] == name) return &p;
  return nullptr;
}

TEST_F(DseCli, TinySweepEndToEndThenResume) {
  const CliResult r = weft(run_args());
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(path("dse.json")));
  EXPECT_EQ(s["schema"], "weft-dse/1");
  EXPECT_EQ(s["points_total"], 3);
  EXPECT_EQ(s["points_ok"], 2);
  EXPECT_EQ(s["measured"], 3);
  const nlohmann::json* o4 = find_point(s, "tiny-o4");
  const nlohmann::json* o8 = find_point(s, "tiny-o8");
  const nlohmann::json* bad = find_point(s, "tiny-i3");
  ASSERT_TRUE(o4 && o8 && bad) << s.dump(1);
  EXPECT_EQ((*bad)["status"], "invalid");
  EXPECT_THAT((*bad)["reason"].get<std::string>(), HasSubstr("block_in = 3 is not a power of two"));
  for (const nlohmann::json* p : {o4, o8}) {
    EXPECT_EQ((*p)["status"], "ok");
    EXPECT_GT((*p)["cycles"].get<double>(), 0);
    EXPECT_GT((*p)["utilization"].get<double>(), 0);
    EXPECT_LE((*p)["utilization"].get<double>(), 1);
    EXPECT_EQ((*p)["layers"].size(), 2u);
    EXPECT_EQ((*p)["macs"], 32 * 32 * 32 + 16 * 64 * 32);
    EXPECT_GT((*p)["energy"]["total_uj"].get<double>(), 0);
    EXPECT_GT((*p)["resources"]["bram36"].get<int>(), 0);
    EXPECT_EQ((*p)["resources"]["source"], "estimate");
  }
  // Twice the GEMM's outputs: more MACs per cycle, fewer cycles.
  EXPECT_EQ((*o8)["resources"]["macs"], 32);
  EXPECT_LT((*o8)["cycles"].get<double>(), (*o4)["cycles"].get<double>());
  EXPECT_EQ(s["pareto"]["latency_vs_macs"], nlohmann::json({"tiny-o8", "tiny-o4"}));
  // The table and the picture.
  EXPECT_THAT(r.out, HasSubstr("tiny-o8"));
  EXPECT_THAT(r.out, HasSubstr("tiny-i3"));
  EXPECT_THAT(r.out, HasSubstr("invalid"));
  EXPECT_THAT(r.err, HasSubstr("[3/3]"));
  const std::string svg = slurp(path("dse.svg"));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  EXPECT_THAT(svg, HasSubstr("fill=\"#d22\""));  // the front
  size_t opened = 0, closed = 0;
  for (size_t at = 0; (at = svg.find("<g>", at)) != std::string::npos; ++at) ++opened;
  for (size_t at = 0; (at = svg.find("</g>", at)) != std::string::npos; ++at) ++closed;
  EXPECT_EQ(opened, closed);
  EXPECT_GE(opened, 2u);

  // The database holds every point; a rerun measures none and reports the same.
  std::ifstream db(path("dse.jsonl"));
  size_t lines = 0;
  for (std::string line; std::getline(db, line);) ++lines;
  EXPECT_EQ(lines, 3u);
  const CliResult again = weft(run_args());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("3 of 3 points from the results database"));
  const nlohmann::json s2 = nlohmann::json::parse(slurp(path("dse.json")));
  EXPECT_EQ(s2["measured"], 0);
  EXPECT_EQ((*find_point(s2, "tiny-o8"))["cycles"], (*o8)["cycles"]);

  // Another sweep naming the same hardware otherwise takes it from the database, renamed.
  const CliResult other = weft("dse layers --layers dense:32x32x32,dense:16x64x32 --base tiny "
                               "--param block_in=4 --param block_out=8 --db " + path("dse.jsonl") +
                               " --json " + path("other.json"));
  ASSERT_EQ(other.code, 0) << other.err;
  const nlohmann::json s3 = nlohmann::json::parse(slurp(path("other.json")));
  EXPECT_EQ(s3["measured"], 0);
  ASSERT_EQ(s3["points"].size(), 1u);
  EXPECT_EQ(s3["points"][0]["name"], "tiny-i4-o8");
  EXPECT_EQ(s3["points"][0]["config"]["name"], "tiny-i4-o8");
  EXPECT_EQ(s3["points"][0]["cycles"], (*o8)["cycles"]);
}

TEST_F(DseCli, BadInputsAreRefusedBeforeAnyWork) {
  const std::string out = " --json " + path("o.json") + " --svg " + path("o.svg");
  auto refused = [&](const std::string& args, const std::string& message) {
    const CliResult r = weft("dse " + args + out);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << args;
    EXPECT_FALSE(std::filesystem::exists(path("o.json"))) << args;
    EXPECT_FALSE(std::filesystem::exists(path("o.svg"))) << args;
  };
  const std::string layers = "layers --layers dense:32x32x32 --base tiny ";
  refused(layers + "--param block_width=4", "unknown parameter 'block_width'");
  refused(layers, "the sweep has no point");
  refused(layers + "--sweep " + path("missing.json"), "missing.json");
  std::ofstream(path("bad.json")) << "{\"params\": [";
  refused(layers + "--sweep " + path("bad.json"), "not valid JSON");
  refused(layers + "--param block_out=4 --jobs 0", "--jobs must be at least 1");
  refused("layers --layers C13 --base tiny --param block_out=4", "'C13' is not a ResNet-18 layer");
  refused("resnet18 --layers C1 --param block_out=4", "--layers goes with the workload 'layers'");
  std::ofstream(path("corrupt.jsonl")) << "not json\n";
  refused(layers + "--param block_out=4 --db " + path("corrupt.jsonl"), "line 1: not valid JSON");
  const CliResult r = weft("dse " + layers + "--param block_out=4 --json /nonexistent/dir/o.json");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--json"));
}

// Hardware options are a swept field like any other: a conv layer on `tiny` with and without
// store_requant, the points named by the options they turn on, the option's point faster.
TEST_F(DseCli, OptionsAreSweptAndNamed) {
  std::ofstream(path("opt.json")) << R"({"base": "tiny",
                                         "params": {"options": [{}, {"store_requant": true}]}})";
  const CliResult r = weft("dse layers --layers C1 --sweep " + path("opt.json") + " --json " +
                           path("opt_out.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(path("opt_out.json")));
  const nlohmann::json* none = find_point(s, "tiny-opt-none");
  const nlohmann::json* rq = find_point(s, "tiny-opt-store_requant");
  ASSERT_TRUE(none && rq) << s.dump(1);
  ASSERT_EQ((*none)["status"], "ok");
  ASSERT_EQ((*rq)["status"], "ok");
  EXPECT_LT((*rq)["cycles"].get<double>(), (*none)["cycles"].get<double>());
}

TEST_F(DseCli, ConfigResourcesIsTheEstimateOfSynthSkip) {
  // The figures synth.sh --skip gave when it computed them itself (python, before they moved
  // to hardware/cost/resource_estimate.cc): vta 168 BRAM36, tiny 17.
  const CliResult vta = weft("config resources vta");
  ASSERT_EQ(vta.code, 0) << vta.err;
  const nlohmann::json j = json_of(vta);
  EXPECT_EQ(j["bram36"], 168);
  EXPECT_EQ(j["macs"], 256);
  EXPECT_EQ(j["synthesized"], false);
  EXPECT_EQ(json_of(weft("config resources tiny"))["bram36"], 17);
}

TEST_F(DseCli, HelpExplainsWithAnExample) {
  const CliResult r = weft("dse --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("Pareto"));
  EXPECT_THAT(r.out, HasSubstr("Example:"));
  EXPECT_THAT(r.out, HasSubstr("--jobs"));
}

}  // namespace
}  // namespace weft::test
