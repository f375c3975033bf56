// The new-user audit's defects on ONNX models (issue #30), through the binary: `compile
// MODEL.onnx --emit graph` printed the imported graph twice; `run MODEL.onnx --engine xrt` asked
// for --xrt-emulate and then refused it; options of the other target were silently ignored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string models() { return WEFT_ONNX_MODELS; }

class OnnxCliAudit : public weft::test::CliFixture {
 protected:
  void SetUp() override {
    if (!fs::exists(models() + "/tiny_resnet.onnx"))
      GTEST_SKIP() << "the test models were not written (python3-onnx?)";
    CliFixture::SetUp();
  }
};

TEST_F(OnnxCliAudit, TheImportedGraphIsPrintedOnce) {
  const auto r = weft("compile " + models() + "/small_cnn.onnx --emit graph");
  ASSERT_EQ(r.code, 0) << r.err;
  size_t n = 0;
  for (size_t at = r.out.find("after import"); at != std::string::npos;
       at = r.out.find("after import", at + 1))
    ++n;
  EXPECT_EQ(n, 1u);
  EXPECT_THAT(r.out, HasSubstr("after plan_memory"));
}

TEST_F(OnnxCliAudit, AModelRunsOnTheEmulatedXrtBoard) {
  const std::string run = "run " + models() + "/tiny_resnet.onnx --input " + models() +
                          "/tiny_resnet_input.npy --config vta ";
  const auto cycle = weft(run + "--engine cycle");
  ASSERT_EQ(cycle.code, 0) << cycle.err;
  const auto xrt = weft(run + "--engine xrt --xrt-emulate cycle");
  ASSERT_EQ(xrt.code, 0) << xrt.err;
  const auto a = nlohmann::json::parse(cycle.out), b = nlohmann::json::parse(xrt.out);
  EXPECT_EQ(b["report"]["engine"], "xrt");
  EXPECT_EQ(a["argmax"], b["argmax"]);
  EXPECT_EQ(a["report"]["accel_cycles"], b["report"]["accel_cycles"]);
  const auto missing = weft(run + "--engine xrt");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("--engine xrt needs --xclbin FILE (a board) or --xrt-emulate"));
}

TEST_F(OnnxCliAudit, OptionsOfTheOtherTargetAreRefused) {
  const std::string run = "run " + models() + "/small_cnn.onnx --input " + models() +
                          "/small_cnn_input.npy ";
  auto r = weft(run + "--target llvm --engine rtl");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--engine goes with --target accel"));
  r = weft(run + "--target accel --threads 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--threads goes with --target llvm, or with --check"));
  r = weft(run + "--target accel --engine warp");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--engine 'warp' is not an engine here"));
}

}  // namespace
