// Compile time through the binary: `weft run MODEL.onnx --target accel` reports each phase's
// wall and CPU seconds (phase_seconds, phase_cpu_seconds) and where its accelerator programs
// came from (accel_programs); a second run with the same --program-cache takes every program
// from the cache and gives the same output; a corrupt cache file is a warning, never an error;
// `--program-cache off` caches nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string models() { return WEFT_ONNX_MODELS; }

class OnnxCompileTime : public weft::test::CliFixture {
 protected:
  void SetUp() override {
    if (!fs::exists(models() + "/tiny_resnet.onnx"))
      GTEST_SKIP() << "the test models were not written (python3-onnx?)";
    CliFixture::SetUp();
  }
  // Runs the tiny ResNet, saving its output under `save` when given.
  nlohmann::json run(const std::string& cache, std::string* err = nullptr,
                     const std::string& save = "") {
    const auto r = weft("run " + models() + "/tiny_resnet.onnx --input " + models() +
                        "/tiny_resnet_input.npy --config vta --engine functional "
                        "--program-cache " + cache + (save.empty() ? "" : " --save " + save));
    EXPECT_EQ(r.code, 0) << r.err;
    if (err) *err = r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  }
};

TEST_F(OnnxCompileTime, PhasesAreTimedAndTheSecondRunTakesEveryProgramFromTheCache) {
  const std::string cache = path("programs");
  const auto cold = run(cache, nullptr, path("cold"));
  for (const char* phase : {"import", "graph_passes", "pass_quantize", "kernel_compile", "run"}) {
    for (const char* kind : {"phase_seconds", "phase_cpu_seconds"}) {
      ASSERT_TRUE(cold[kind].contains(phase)) << kind << " " << phase;
      EXPECT_GE(cold[kind][phase].get<double>(), 0.0) << kind << " " << phase;
    }
  }
  const auto& a = cold["accel_programs"];
  EXPECT_GT(a["compiled"].get<int>(), 0);
  EXPECT_EQ(a["from_cache"], 0);
  EXPECT_EQ(a["cache"], cache);
  const auto warm = run(cache, nullptr, path("warm"));
  const auto& b = warm["accel_programs"];
  EXPECT_EQ(b["compiled"], 0);
  EXPECT_EQ(b["from_cache"], a["compiled"]);
  EXPECT_EQ(warm["argmax"], cold["argmax"]);
  const std::string out = weft::test::slurp(path("cold") + "/output.npy");
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(weft::test::slurp(path("warm") + "/output.npy"), out);

  // Every file corrupted: each program is compiled again, with one warning.
  for (const auto& f : fs::directory_iterator(cache)) std::ofstream(f.path()) << "corrupt";
  std::string err;
  const auto again = run(cache, &err);
  EXPECT_THAT(err, HasSubstr("ignoring the cached program"));
  EXPECT_EQ(again["accel_programs"]["compiled"], a["compiled"]);
  EXPECT_EQ(again["argmax"], cold["argmax"]);
}

TEST_F(OnnxCompileTime, ProgramCacheOffCachesNothing) {
  const auto r = run("off");
  EXPECT_EQ(r["accel_programs"]["cache"], "off");
  EXPECT_EQ(r["accel_programs"]["from_cache"], 0);
}

}  // namespace
