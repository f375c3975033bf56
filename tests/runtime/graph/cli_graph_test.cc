// `weft run resnet18` and `weft compile resnet18` as a user runs them: a small member of the
// family end to end with --check (bit-exact with the int8 reference), the JSON report, the
// saved logits and timeline, every pass printable, and bad options as clear errors (exit 1,
// nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <vector>
#include <filesystem>
#include <map>
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

  // `weft trace render` draws the network's timeline (microseconds): one box per node.
  const Result svg = weft("trace render " + (dir_ / "t.json").string() + " -o " +
                          (dir_ / "t.svg").string());
  ASSERT_EQ(svg.code, 0) << svg.err;
  const std::string picture = slurp(dir_ / "t.svg");
  size_t nodes = 0, boxes = 0;
  for (const auto& e : t["traceEvents"]) nodes += e["ph"] == "X";
  for (size_t at = picture.find("</title></rect>"); at != std::string::npos;
       at = picture.find("</title></rect>", at + 1))
    ++boxes;
  EXPECT_EQ(boxes, nodes);
  EXPECT_NE(picture.find("(µs 0-"), std::string::npos);
  EXPECT_NE(picture.find(">conv1 (weft.AccelConv) ["), std::string::npos);
}

// --per-channel: one shift per output channel, applied on the accelerator (a shift tile and a
// register SHR), so as many MACs run there as per tensor, bit-exact with the int8 reference.
TEST_F(CliGraph, PerChannelStaysOnTheAccelerator) {
  const Result pc = weft(std::string("run resnet18 ") + kSmall + " --engine cycle --check --json --per-channel");
  const Result pt = weft(std::string("run resnet18 ") + kSmall + " --engine cycle --json");
  ASSERT_EQ(pc.code, 0) << pc.err;
  ASSERT_EQ(pt.code, 0) << pt.err;
  const auto a = nlohmann::json::parse(pc.out), b = nlohmann::json::parse(pt.out);
  EXPECT_TRUE(a["check"]["bit_exact_with_int8_reference"].get<bool>());
  EXPECT_GT(a["check"]["cosine_vs_fp32"].get<double>(), 0.99);
  EXPECT_EQ(a["accel_macs"], b["accel_macs"]);
  EXPECT_EQ(a["macs"], b["macs"]);
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
                        "split_groups", "stem_im2col", "stem_space_to_depth", "partition", "pack_layouts", "band_pool", "fold_packs",
                        "plan_memory"})
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

// One accelerator node's kernel as the executor runs it: the accelerator pipeline after every
// pass and program step, the rewrites that ran for it included, or its placed instructions.
TEST_F(CliGraph, CompilePrintsOneNodesKernelWithItsRewrites) {
  const std::string node = std::string("compile resnet18 ") + kSmall + " --node layer1.0.conv2";
  Result r = weft(node + " --emit ir");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* p : {"lower", "assign_queues", "emit_accel", "residual_init", "bias_gemm",
                        "skip_pad_taps", "plan_tokens"})
    EXPECT_NE(r.out.find(std::string("// ---- after ") + p + " ----\n"), std::string::npos) << p;
  r = weft(node + " --emit ir --pass bias_gemm");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("// ---- after"), r.out.rfind("// ---- after")) << "one step only";
  EXPECT_NE(r.out.find("LOAD INP layer1.0.conv2.ones"), std::string::npos) << r.out;
  r = weft(node + " --emit asm");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rewrites: residual_init bias_gemm skip_pad_taps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LOAD ACC_8BIT"), std::string::npos);
  // Bad combinations: exit 1 with a message naming what is wrong.
  r = weft(std::string("compile resnet18 ") + kSmall + " --emit ir");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--emit ir|asm goes with --node"), std::string::npos) << r.err;
  r = weft(std::string("compile resnet18 ") + kSmall + " --emit ir --node nosuch");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no accelerator node named 'nosuch'"), std::string::npos) << r.err;
  r = weft(node + " --emit ir --pass nosuch");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--pass 'nosuch' is not a pass of the accelerator pipeline"),
            std::string::npos) << r.err;
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

namespace {

// The first stage of ResNet-18 at its real shapes (224x224, 64 channels): its four 3x3 convs are
// workloads the shipped vta records hold (runtime/tune/records/resnet18_vta.jsonl).
const char* kStage1 = "--config vta --image 224 --width 64 --stages 1 --classes 10 --tune 1 "
                      "--knob-cache '' --engine cycle --json";

std::map<std::string, int> sources(const nlohmann::json& j) {
  std::map<std::string, int> s;
  for (const auto& n : j["nodes"])
    if (n["engine"] == "accel") ++s[n["schedule_source"].get<std::string>()];
  return s;
}

TEST_F(CliGraph, SchedulesComeFromTheTuningRecordsFirst) {
  const Result rec = weft(std::string("run resnet18 ") + kStage1);
  const Result own = weft(std::string("run resnet18 ") + kStage1 + " --no-records");
  ASSERT_EQ(rec.code, 0) << rec.err;
  ASSERT_EQ(own.code, 0) << own.err;
  const auto a = nlohmann::json::parse(rec.out), b = nlohmann::json::parse(own.out);
  // The four layer1 convs take the records; the stem (space-to-depth, not a recorded shape)
  // the executor's own choice.
  for (const auto& n : a["nodes"]) {
    if (n["node"].get<std::string>().rfind("layer1.", 0) == 0 && n["engine"] == "accel") {
      EXPECT_EQ(n["schedule_source"], "tuning records") << n.dump();
    }
  }
  EXPECT_EQ(sources(a)["tuning records"], 4) << rec.out;
  EXPECT_EQ(sources(b).count("tuning records"), 0u) << own.out;
  EXPECT_EQ(sources(b)["analytic chooser"],
            sources(a)["tuning records"] + sources(a)["analytic chooser"]) << own.out;
  // The records are the tuner's measured bests: fewer cycles than the analytic choice (measured
  // on the cycle model: 529937 vs 545403 cycles for each layer1 conv1), and the same logits.
  EXPECT_LT(a["accel_cycles"].get<uint64_t>(), b["accel_cycles"].get<uint64_t>());
  EXPECT_EQ(a["top1"], b["top1"]);
}

TEST_F(CliGraph, ACorruptTuneDbIsAUserError) {
  const fs::path db = dir_ / "bad.jsonl";
  std::ofstream(db) << "{not json\n";
  const Result r = weft(std::string("run resnet18 ") + kSmall + " --tune-db " + db.string() +
                        " --save " + (dir_ / "o").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("bad.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

}  // namespace

namespace {

// A .npy (version 1.0) of `shape` with `descr` ("<f4", "<i4") holding `bytes`.
void write_npy(const fs::path& p, const std::string& descr, const std::vector<int64_t>& shape,
               const std::string& bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ",";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream f(p, std::ios::binary);
  f << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
    << static_cast<char>(header.size() >> 8) << header << bytes;
}

TEST_F(CliGraph, CalibratesOnTheUsersInputs) {
  // Three samples of the small network's input [1,3,32,32], stacked: a smooth pattern in [-1, 1].
  const int64_t per = 3 * 32 * 32;
  std::string bytes(static_cast<size_t>(3 * per * 4), '\0');
  for (int64_t i = 0; i < 3 * per; ++i) {
    const float v = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    std::memcpy(&bytes[static_cast<size_t>(4 * i)], &v, 4);
  }
  const fs::path cal = dir_ / "cal.npy";
  write_npy(cal, "<f4", {3, 1, 3, 32, 32}, bytes);
  const Result r = weft(std::string("run resnet18 ") + kSmall + " --calibrate " + cal.string() +
                        " --engine functional --check --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["check"]["bit_exact_with_int8_reference"].get<bool>());
  EXPECT_GT(j["check"]["cosine_vs_fp32"].get<double>(), 0.95);
  // A calibration file of another dtype or shape is a user error naming it.
  const fs::path bad = dir_ / "bad.npy";
  write_npy(bad, "<i4", {1, 3, 32, 32}, std::string(static_cast<size_t>(per * 4), '\0'));
  Result e = weft(std::string("run resnet18 ") + kSmall + " --calibrate " + bad.string());
  EXPECT_EQ(e.code, 1);
  EXPECT_NE(e.err.find("bad.npy' must be float32 of the network's input shape [1,3,32,32]"),
            std::string::npos) << e.err;
  write_npy(bad, "<f4", {1, 3, 16, 16}, std::string(static_cast<size_t>(3 * 16 * 16 * 4), '\0'));
  e = weft(std::string("run resnet18 ") + kSmall + " --calibrate " + bad.string());
  EXPECT_EQ(e.code, 1);
  EXPECT_NE(e.err.find("[1,3,16,16]"), std::string::npos) << e.err;
}

}  // namespace
