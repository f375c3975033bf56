// `weft run resnet18` and `weft compile resnet18` as a user runs them: a small member of the
// family end to end with --check (bit-exact with the int8 reference), the JSON report, the
// saved logits and timeline, every pass printable, and bad options as clear errors (exit 1,
// nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CliGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("weft_cli_graph_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Result weft(const std::string& args) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd = std::string(WEFT_BIN) + " " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(cmd.c_str());
    Result r{WEXITSTATUS(status), slurp(out), slurp(err)};
    fs::remove(out);
    fs::remove(err);
    return r;
  }
  fs::path dir_;
};

const char* kSmall = "--image 32 --width 16 --stages 2 --classes 10 --knob-cache ''";

TEST_F(CliGraph, RunSmallResNetChecksAndSaves) {
  const Result r = weft(std::string("run resnet18 ") + kSmall + " --engine cycle --check --json --save " +
                        (dir_ / "out").string() + " --trace " + (dir_ / "t.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["check"]["bit_exact_with_int8_reference"].get<bool>());
  EXPECT_GT(j["check"]["cosine_vs_fp32"].get<double>(), 0.95);
  EXPECT_GT(j["accel_cycles"].get<uint64_t>(), 0u);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "output.npy"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.json"));
  const auto t = nlohmann::json::parse(slurp(dir_ / "t.json"));
  EXPECT_GT(t["traceEvents"].size(), 10u);
}

TEST_F(CliGraph, FunctionalAndCycleAgree) {
  const Result a = weft(std::string("run resnet18 ") + kSmall + " --engine functional --json");
  const Result b = weft(std::string("run resnet18 ") + kSmall + " --engine cycle --json");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["top1"], nlohmann::json::parse(b.out)["top1"]);
}

TEST_F(CliGraph, CompilePrintsEveryPass) {
  const Result r = weft(std::string("compile resnet18 ") + kSmall + " --emit graph");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* p : {"import", "fold_batch_norm", "quantize", "fuse_epilogues",
                        "stem_im2col", "stem_space_to_depth", "partition", "pack_layouts", "plan_memory"})
    EXPECT_NE(r.out.find(std::string("// after ") + p + "\n"), std::string::npos) << p;
  EXPECT_NE(r.out.find("memory plan: device arena"), std::string::npos);
  const Result one = weft(std::string("compile resnet18 ") + kSmall + " --emit graph --pass pack_layouts");
  ASSERT_EQ(one.code, 0);
  EXPECT_NE(one.out.find("weft.AccelConv"), std::string::npos);
  EXPECT_EQ(one.out.find("// after quantize"), std::string::npos);
  const Result steps = weft(std::string("compile resnet18 ") + kSmall + " --emit steps");
  ASSERT_EQ(steps.code, 0);
  EXPECT_NE(steps.out.find("launch  layer1.0.conv1"), std::string::npos) << steps.out;
}

TEST_F(CliGraph, BadOptionsAreUserErrors) {
  Result r = weft("compile resnet18 --emit graph --pass nosuch");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--pass 'nosuch' is not a graph pass"), std::string::npos) << r.err;
  r = weft(std::string("run resnet18 ") + kSmall + " --engine nosuch --save " + (dir_ / "o").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  r = weft("run resnet18 --image 33");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("multiple of 32"), std::string::npos) << r.err;
  r = weft("run resnet18 --config nosuch");
  EXPECT_EQ(r.code, 1);
}

}  // namespace
