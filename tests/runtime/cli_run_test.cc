// End-to-end tests of `weft run dense` and `weft compile dense` as a user runs them: the JSON
// report on both engines, the .npy files of --save checked against a reference computed here
// from the saved inputs, the timeline of --trace, bad input that exits 1 with a clear message
// and writes nothing, and the IR and instruction listings of `weft compile dense`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code;
  std::string out, err;
};

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("weft_cli_run_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  Result weft(const std::string& args) const {
    const std::string out = path("stdout.txt"), err = path("stderr.txt");
    const std::string cmd = std::string(WEFT_BIN) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    Result r{WEXITSTATUS(status), slurp(out), slurp(err)};
    fs::remove(out);
    fs::remove(err);
    return r;
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // The files the test folder holds (the command's own outputs).
  std::vector<std::string> files() const {
    std::vector<std::string> v;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      v.push_back(fs::relative(e.path(), dir_).string());
    }
    std::sort(v.begin(), v.end());
    return v;
  }

  fs::path dir_;
};

// An int8 .npy array read independently of runtime/io: version 1.0 header, '|i1', C order.
struct Npy {
  std::vector<int64_t> shape;
  std::vector<int8_t> data;
};

Npy read_npy(const std::string& bytes) {
  Npy n;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return n;
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const size_t header_len =
      static_cast<uint8_t>(bytes[8]) | (size_t{static_cast<uint8_t>(bytes[9])} << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ((10 + header_len) % 64, 0u) << "the data starts 64-byte aligned";
  EXPECT_THAT(header, HasSubstr("'descr': '|i1'"));
  EXPECT_THAT(header, HasSubstr("'fortran_order': False"));
  std::smatch m;
  if (std::regex_search(header, m, std::regex("'shape': \\(([0-9, ]*)\\)"))) {
    std::stringstream dims(m[1].str());
    std::string d;
    while (std::getline(dims, d, ',')) {
      if (d.find_first_not_of(' ') != std::string::npos) n.shape.push_back(std::stoll(d));
    }
  } else {
    ADD_FAILURE() << "no shape in " << header;
  }
  for (size_t i = 10 + header_len; i < bytes.size(); ++i) {
    n.data.push_back(static_cast<int8_t>(bytes[i]));
  }
  return n;
}

// clip((A . W^T) >> shift, lo, 127) as int8, row-major M x N.
std::vector<int8_t> reference(const Npy& a, const Npy& w, int shift, bool relu) {
  const int64_t m = a.shape[0], k = a.shape[1], n = w.shape[0];
  std::vector<int8_t> out;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t x = 0; x < k; ++x) sum += int64_t{a.data[i * k + x]} * w.data[j * k + x];
      out.push_back(static_cast<int8_t>(std::clamp<int64_t>(sum >> shift, relu ? 0 : -128, 127)));
    }
  }
  return out;
}

const std::string kDense = "--M 20 --N 12 --K 30 --config vta --vthreads 2";

TEST_F(CliRun, CycleEngineReportsCorrectCyclesUtilizationKnobsAndRoofline) {
  const Result r = weft("run dense " + kDense + " --engine cycle");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["op"], "dense");
  EXPECT_EQ(j["shape"], nlohmann::json({{"M", 20}, {"N", 12}, {"K", 30}}));
  EXPECT_EQ(j["config"], "vta");
  EXPECT_EQ(j["engine"], "cycle");
  EXPECT_EQ(j["correct"], true);
  EXPECT_EQ(j["mismatches"], 0);
  EXPECT_GT(j["cycles"].get<double>(), 0);
  const double u = j["utilization"].get<double>();
  EXPECT_GT(u, 0.0);
  EXPECT_LE(u, 1.0);
  // Knobs: the chooser's tiles for two threads, which fit vta's buffers.
  const auto& k = j["knobs"];
  EXPECT_EQ(k["vthreads"], 2);
  for (const char* t : {"tile_m", "tile_n", "tile_k"}) EXPECT_GE(k[t].get<int>(), 1) << t;
  EXPECT_TRUE(k["vthread_axis"] == "m" || k["vthread_axis"] == "n");
  // Padded blocks cover the shape (vta blocks are 1 x 16 x 16).
  EXPECT_GE(j["padded_blocks"]["m"].get<int>(), 20);
  EXPECT_GE(j["padded_blocks"]["n"].get<int>(), 1);
  EXPECT_GE(j["padded_blocks"]["k"].get<int>(), 2);
  const auto& roof = j["roofline"];
  for (const char* f : {"compute_cycles", "memory_cycles", "bound_cycles"}) {
    EXPECT_GT(roof[f].get<double>(), 0) << f;
  }
  EXPECT_EQ(roof["bound_cycles"].get<double>(),
            std::max(roof["compute_cycles"].get<double>(), roof["memory_cycles"].get<double>()));
  const double bound = roof["bound_utilization"].get<double>();
  EXPECT_GT(bound, 0.0);
  EXPECT_LE(bound, 1.0);
  // The run cannot beat its roofline.
  EXPECT_LE(u, bound + 1e-9);
  EXPECT_NEAR(j["fraction_of_roofline"].get<double>(), u / bound, 1e-9);
  for (const char* m : {"load", "compute", "store"}) EXPECT_TRUE(j["modules"].contains(m)) << m;
  EXPECT_GT(j["instructions"].get<int>(), 0);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_THAT(files(), ::testing::IsEmpty()) << "nothing written without --save/--trace";
}

TEST_F(CliRun, FunctionalEngineIsCorrectAndHasNoCycles) {
  const Result r = weft("run dense " + kDense + " --engine functional");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "functional");
  EXPECT_EQ(j["correct"], true);
  for (const char* f : {"cycles", "utilization", "roofline", "fraction_of_roofline", "gops"}) {
    EXPECT_FALSE(j.contains(f)) << f;
  }
}

TEST_F(CliRun, SavedArraysHaveTheirShapesAndTheOutputMatchesAReference) {
  struct Case {
    std::string args;
    int shift;
    bool relu;
  };
  for (const Case& c : {Case{kDense + " --engine cycle", 8, false},
                        Case{"--M 20 --N 12 --K 30 --config tiny --vthreads 4 --shift 3 --relu "
                             "--engine functional --seed 9",
                             3, true},
                        Case{"--M 20 --N 12 --K 30 --config gemm8x8 --vthreads 1 --shift 20 "
                             "--engine cycle",
                             20, false}}) {
    SCOPED_TRACE(c.args);
    const std::string dir = path("saved");
    fs::remove_all(dir);
    const Result r = weft("run dense " + c.args + " --save " + dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["saved"], dir);
    const Npy a = read_npy(slurp(dir + "/input.npy"));
    const Npy w = read_npy(slurp(dir + "/weight.npy"));
    const Npy o = read_npy(slurp(dir + "/output.npy"));
    ASSERT_EQ(a.shape, (std::vector<int64_t>{20, 30}));
    ASSERT_EQ(w.shape, (std::vector<int64_t>{12, 30}));
    ASSERT_EQ(o.shape, (std::vector<int64_t>{20, 12}));
    ASSERT_EQ(a.data.size(), 600u);
    ASSERT_EQ(w.data.size(), 360u);
    ASSERT_EQ(o.data.size(), 240u);
    EXPECT_EQ(o.data, reference(a, w, c.shift, c.relu));
    // Random data, not a constant matrix (so the comparison means something).
    EXPECT_NE(std::count(a.data.begin(), a.data.end(), a.data[0]), 600);
    EXPECT_GT(std::set<int8_t>(o.data.begin(), o.data.end()).size(), 1u);
  }
}

TEST_F(CliRun, TraceWritesATimeline) {
  const Result r = weft("run dense " + kDense + " --engine cycle --trace " + path("t.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = nlohmann::json::parse(slurp(path("t.json")));
  ASSERT_TRUE(t.contains("traceEvents"));
  EXPECT_GT(t["traceEvents"].size(), 10u);
}

TEST_F(CliRun, BadInputExitsOneWithAClearMessageAndWritesNothing) {
  const std::string outputs = " --save " + path("saved") + " --trace " + path("t.json");
  struct Case {
    std::string args, message;
    bool with_outputs = true;
  };
  const Case cases[] = {
      {"--M 0 --N 12 --K 30", "dense: M = 0 is out of range (1 to 1048576)"},
      {"--M 20 --N 12 --K 30 --tile-m 1000 --tile-n 1",
       "the ACC tiles need 1000 blocks x 2 threads = 2000 blocks, but the ACC buffer of gemm8x8 "
       "holds 512"},
      {"--M 20 --N 12 --K 30 --config vta --tile-m 1000 --tile-n 1 --tile-k 2",
       "the INP tiles need 2000 blocks x 2 threads = 4000 blocks, but the INP buffer of vta "
       "holds 2048"},
      {"--M 20 --N 12 --K 30 --vthread-axis q", "--vthread-axis must be m or n, not 'q'"},
      {"--M 20 --N 12 --K 30 --vthreads 0", "--vthreads 0 is out of range (1 to 64)"},
      {"--M 20 --N 12 --K 30 --config gemm16",
       "unknown configuration 'gemm16' (known: gemm8x8, vta, tiny)"},
      // (--trace is checked first: an engine without timing has none to write.)
      {"--M 20 --N 12 --K 30 --engine warp --save " + path("saved"), "--engine 'warp' is not an engine",
       false},
      {"--M 20 --N 12 --K 30 --shift 40", "shift = 40 is out of range (0 to 31)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = weft("run dense " + c.args + (c.with_outputs ? outputs : ""));
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_THAT(files(), ::testing::IsEmpty());
  }
  // --trace needs timing.
  const Result r = weft("run dense " + kDense + " --engine functional" + outputs);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--trace needs --engine cycle (the functional engine has no "
                               "timing)"));
  EXPECT_THAT(files(), ::testing::IsEmpty());
  // A missing size is bad input like any other (exit 1, README), with CLI11's message.
  const Result usage = weft("run dense --M 20 --N 12");
  EXPECT_EQ(usage.code, 1);
  EXPECT_THAT(usage.err, HasSubstr("weft: error: --K is required"));
  EXPECT_EQ(weft("run").code, 1);
}

TEST_F(CliRun, CompileEmitsTheIrAfterEveryPass) {
  const Result r = weft("compile dense " + kDense + " --emit ir");
  ASSERT_EQ(r.code, 0) << r.err;
  // Every pass, in pipeline order.
  size_t at = 0;
  for (const char* pass : {"lower", "lower_alu", "detect_dma", "expand_vthreads", "allocate_onchip",
                           "fold_uops", "assign_queues"}) {
    const size_t next = r.out.find(std::string("// ---- after ") + pass + " ----\n", at);
    ASSERT_NE(next, std::string::npos) << pass;
    at = next + 1;
  }
  EXPECT_THAT(r.out, HasSubstr("weft.alu(C.acc, C.acc, "));
  EXPECT_THAT(r.out, HasSubstr("weft.alu_kernel("));
  EXPECT_THAT(r.out, HasSubstr("// attr weft.queue = 2"));
  // The epilogue as written (after lower), before lower_alu turns it into ALU passes.
  const std::string lowered = r.out.substr(0, r.out.find("// ---- after lower_alu"));
  EXPECT_THAT(lowered, HasSubstr("int8(min(max((C.acc["));
  EXPECT_THAT(lowered, Not(HasSubstr("weft.alu")));
}

TEST_F(CliRun, CompileOnePass) {
  const Result r = weft("compile dense " + kDense + " --emit ir --pass detect_dma");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("// ---- after detect_dma ----"));
  EXPECT_EQ(r.out.find("// ---- after"), r.out.rfind("// ---- after")) << "one pass only";
  EXPECT_THAT(r.out, HasSubstr("weft.dma_copy2d("));
  EXPECT_THAT(r.out, HasSubstr("weft.alu("));
  EXPECT_THAT(r.out, Not(HasSubstr("pragma_dma_copy")));
  EXPECT_THAT(r.out, Not(HasSubstr("weft.alu_kernel")));

  const Result bad = weft("compile dense " + kDense + " --emit ir --pass nope");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err,
              HasSubstr("--pass 'nope' is not a pass of the pipeline (lower, lower_alu, "
                        "detect_dma, expand_vthreads, allocate_onchip, fold_uops, assign_queues)"));
  EXPECT_TRUE(bad.out.empty());
  const Result emit = weft("compile dense " + kDense + " --emit bin");
  EXPECT_EQ(emit.code, 1);
  EXPECT_THAT(emit.err, HasSubstr("--emit must be ir, asm or llvm, not 'bin'"));
}

TEST_F(CliRun, CompileEmitsTheInstructionListing) {
  const Result r = weft("compile dense " + kDense + " --emit asm");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> insns;
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != '/') insns.push_back(line);
  }
  ASSERT_FALSE(insns.empty());
  for (size_t i = 0; i < insns.size(); ++i) {
    EXPECT_EQ(insns[i].rfind(std::to_string(i) + ": ", 0), 0u) << insns[i];
  }
  auto count = [&](const std::string& what) {
    return std::count_if(insns.begin(), insns.end(),
                         [&](const std::string& l) { return l.find(what) != std::string::npos; });
  };
  // Two threads: each thread's epilogue is SHR 8, MAX -128, MIN 127 over its accumulator tile.
  EXPECT_EQ(count("ALU SHR"), 2);
  EXPECT_EQ(count("ALU MAX"), 2);
  EXPECT_EQ(count("ALU MIN"), 2);
  EXPECT_EQ(count("use_imm imm=8"), 2);
  EXPECT_EQ(count("use_imm imm=-128"), 2);
  EXPECT_EQ(count("use_imm imm=127"), 2);
  EXPECT_GE(count("GEMM reset_reg"), 2);
  EXPECT_GT(count("GEMM"), count("GEMM reset_reg"));
  EXPECT_GE(count("LOAD INP"), 2);
  EXPECT_GE(count("LOAD WGT"), 2);
  EXPECT_GE(count("STORE OUT"), 2);
  EXPECT_THAT(insns.back(), HasSubstr("FINISH"));
  EXPECT_THAT(r.out, HasSubstr("// " + std::to_string(insns.size()) + " instructions;"));
  // `weft run` executes the same stream.
  const Result run = weft("run dense " + kDense + " --engine functional");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["instructions"].get<size_t>(), insns.size());
}

TEST_F(CliRun, HelpExitsZero) {
  const Result run = weft("run --help");
  EXPECT_EQ(run.code, 0);
  EXPECT_THAT(run.out, HasSubstr("dense"));
  const Result dense = weft("run dense --help");
  EXPECT_EQ(dense.code, 0);
  for (const char* option : {"--vthreads", "--vthread-axis", "--tile-m", "--engine", "--save",
                             "--trace", "--relu", "--shift"}) {
    EXPECT_THAT(dense.out, HasSubstr(option));
  }
  const Result compile = weft("compile dense --help");
  EXPECT_EQ(compile.code, 0);
  EXPECT_THAT(compile.out, HasSubstr("--vthreads"));
  EXPECT_THAT(compile.out, HasSubstr("--emit"));
}

// ---- weft run conv2d and weft bench resnet18 ----

// The int32 payload of a '<i4' .npy file (header checked by read_npy's rules).
std::vector<int32_t> read_npy_int32(const std::string& bytes, std::vector<int64_t>* shape) {
  const size_t header_len =
      static_cast<uint8_t>(bytes[8]) | (size_t{static_cast<uint8_t>(bytes[9])} << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_THAT(header, HasSubstr("'descr': '<i4'"));
  std::smatch m;
  if (std::regex_search(header, m, std::regex("'shape': \\(([0-9]+),\\)"))) {
    shape->push_back(std::stoll(m[1].str()));
  }
  std::vector<int32_t> v((bytes.size() - 10 - header_len) / 4);
  std::memcpy(v.data(), bytes.data() + 10 + header_len, v.size() * 4);
  return v;
}

TEST_F(CliRun, Conv2dSavesPlainArraysThatAReferenceReproduces) {
  const Result r = weft("run conv2d --N 2 --H 9 --W 7 --IC 5 --OC 20 --K 3 --stride 2 --pad 1 "
                        "--config gemm8x8 --vthreads 2 --shift 4 --save " + path("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["op"], "conv2d");
  EXPECT_EQ(j["correct"], true);
  EXPECT_EQ(j["shape"]["OH"], 5);
  EXPECT_EQ(j["shape"]["OW"], 4);
  EXPECT_GT(j["cycles"].get<double>(), 0);
  EXPECT_GT(j["roofline"]["bound_utilization"].get<double>(), 0);
  const Npy in = read_npy(slurp(path("out/input.npy")));
  const Npy w = read_npy(slurp(path("out/weight.npy")));
  const Npy out = read_npy(slurp(path("out/output.npy")));
  std::vector<int64_t> bias_shape;
  const auto bias = read_npy_int32(slurp(path("out/bias.npy")), &bias_shape);
  EXPECT_EQ(in.shape, (std::vector<int64_t>{2, 5, 9, 7}));
  EXPECT_EQ(w.shape, (std::vector<int64_t>{20, 5, 3, 3}));
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 20, 5, 4}));
  EXPECT_EQ(bias_shape, (std::vector<int64_t>{20}));
  // clip(((conv >> 4) + bias), 0, 127), computed here from the saved arrays.
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t o = 0; o < 20; ++o) {
      for (int64_t y = 0; y < 5; ++y) {
        for (int64_t x = 0; x < 4; ++x) {
          int64_t sum = 0;
          for (int64_t c = 0; c < 5; ++c) {
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = y * 2 + ky - 1, ix = x * 2 + kx - 1;
                if (iy < 0 || iy >= 9 || ix < 0 || ix >= 7) continue;
                sum += int64_t{in.data[((n * 5 + c) * 9 + iy) * 7 + ix]} *
                       w.data[((o * 5 + c) * 3 + ky) * 3 + kx];
              }
            }
          }
          const int64_t v = std::clamp<int64_t>((sum >> 4) + bias[o], 0, 127);
          ASSERT_EQ(out.data[((n * 20 + o) * 5 + y) * 4 + x], v) << n << " " << o << " " << y;
        }
      }
    }
  }
}

TEST_F(CliRun, Conv2dBadInputIsAClearError) {
  Result r = weft("run conv2d --H 8 --W 8 --IC 16 --OC 16 --K 3 --stride 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("stride = 0 is out of range"));
  r = weft("run conv2d --layer C13");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("no ResNet-18 layer 'C13'"));
  r = weft("run conv2d --H 8 --W 8 --IC 16 --OC 16");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("needs --layer, or all of --H --W --IC --OC --K"));
  r = weft("run conv2d --layer C2 --tile-h 56 --tile-w 56 --tile-oc 8 --save " + path("x"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("buffer of gemm8x8 holds"));
  EXPECT_FALSE(fs::exists(path("x/output.npy")));
}

// The user's case: a 16-candidate search of C11 on gemm8x8 used to stop at a candidate whose
// tile lay in the padding. The search reports what it measured and rejected, and the run is
// correct.
TEST_F(CliRun, Conv2dSearchSurvivesAndReportsItsCandidates) {
  Result r = weft("run conv2d --layer C11 --config gemm8x8 --N 8 --search 16");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["correct"].get<bool>());
  EXPECT_EQ(j["search"]["candidates"], 16);
  EXPECT_EQ(j["search"]["measured"].get<int>() + j["search"]["rejected"].get<int>(), 16);
  EXPECT_EQ(j["search"]["best_cycles"], j["cycles"]);
  EXPECT_THAT(r.err, HasSubstr("search: 16/16"));
}

// A dense that would run for weeks says so before it starts: --dry-run prints the work and the
// times measured on a sample, and one that cannot fit in memory is refused at once.
TEST_F(CliRun, AHugeDenseShowsItsCostFirstAndIsRefusedWhenItCannotFit) {
  Result r = weft("run dense --M 100000 --N 100000 --K 100000 --engine functional --dry-run");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto e = nlohmann::json::parse(r.out)["estimate"];
  EXPECT_EQ(e["macs"].get<double>(), 1e15);
  EXPECT_GT(e["instructions"].get<double>(), 1e8);
  EXPECT_GT(e["total_seconds"].get<double>(), 3600);
  EXPECT_GT(e["dram_image_bytes"].get<double>(), 3e10);
  r = weft("run dense --M 200000 --N 200000 --K 200000 --engine functional --save " +
           path("out"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("GB of memory"));
  EXPECT_THAT(r.err, HasSubstr("--dry-run"));
  EXPECT_FALSE(fs::exists(path("out/output.npy")));
}

// A long run shows the work it implies, then its progress (the functional engine too), and
// Ctrl-C stops it at once with exit code 130 and nothing written.
TEST_F(CliRun, ALongRunShowsItsWorkAndProgressAndStopsOnCtrlC) {
  const std::string err = path("stderr.txt"), dir = path("saved");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c",
            (std::string("exec ") + WEFT_BIN +
             " run dense --M 4096 --N 4096 --K 4096 --engine functional --progress --save " +
             dir + " >/dev/null 2>" + err)
                .c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait (at most a minute on a loaded machine) for a progress line of the engine run.
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    ::usleep(100 * 1000);
    running = slurp(err).find("instructions (") != std::string::npos;
  }
  ::kill(pid, SIGINT);
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 200 && !ended; ++i) {  // it stops at once: allow 20 s on a loaded machine
    ended = ::waitpid(pid, &status, WNOHANG) == pid;
    if (!ended) ::usleep(100 * 1000);
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const std::string text = slurp(err);
  EXPECT_TRUE(running) << text;
  ASSERT_TRUE(ended) << "still running 20 s after Ctrl-C";
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_THAT(text, HasSubstr("6.9e+10 MACs"));
  EXPECT_THAT(text, HasSubstr("the functional engine ~"));
  EXPECT_THAT(text, HasSubstr("interrupted"));
  EXPECT_TRUE(!fs::exists(dir) || fs::is_empty(dir));
}

TEST_F(CliRun, BenchResnet18TwoLayersWritesResultsRooflineAndTraces) {
  const Result r = weft("bench resnet18 --config vta --layers C11,C12 --search 1 --no-knob-cache "
                        "--save " + path("bench"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("C12"));
  const auto j = nlohmann::json::parse(slurp(path("bench/results.json")));
  ASSERT_EQ(j["layers"].size(), 2u);
  for (const auto& l : j["layers"]) {
    EXPECT_EQ(l["correct"], true) << l["layer"];
    EXPECT_GT(l["cycles"].get<double>(), 0);
    EXPECT_GT(l["one_thread"]["cycles"].get<double>(), 0);
    EXPECT_GT(l["roofline"]["bound_utilization"].get<double>(), 0);
    EXPECT_TRUE(fs::exists(path("bench/" + l["trace"].get<std::string>())));
  }
  EXPECT_EQ(j["layers"][0]["layer"], "C11");
  EXPECT_THAT(slurp(path("bench/roofline.svg")), HasSubstr("<svg"));
  const Result bad = weft("bench resnet18 --layers C2,C99 --save " + path("bad"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("no layer 'C99'"));
  Result r2 = weft("bench resnet18 --engine functional --layers C12 --save " + path("bad"));
  EXPECT_EQ(r2.code, 1);
  EXPECT_THAT(r2.err, HasSubstr("needs --engine cycle"));
  r2 = weft("bench resnet18 --vthreads 1 --layers C12 --save " + path("bad"));
  EXPECT_EQ(r2.code, 1);
  EXPECT_THAT(r2.err, HasSubstr("--vthreads must be at least 2"));
  EXPECT_FALSE(fs::exists(path("bad/results.json")));
}

TEST_F(CliRun, BenchIgnoresAnUnreadableKnobCacheAndRewritesIt) {
  {
    std::ofstream(path("knobs.json")) << "{ not json";
  }
  const Result r = weft("bench resnet18 --config vta --layers C12 --search 1 --no-check "
                        "--knob-cache " + path("knobs.json") + " --save " + path("b"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ignoring the unreadable knob cache"));
  const auto cache = nlohmann::json::parse(slurp(path("knobs.json")));
  EXPECT_EQ(cache.size(), 2u);  // the latency-hiding and the one-thread choice of C12
}

TEST_F(CliRun, CompileConv2dShowsThePaddedDmaAndTheListing) {
  Result r = weft("compile conv2d --H 9 --W 9 --IC 16 --OC 16 --K 3 --pad 1 --config vta "
                  "--emit ir --pass detect_dma");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("// ---- after detect_dma ----"));
  EXPECT_THAT(r.out, HasSubstr("weft.dma_copy2d_pad(A.pad.inp"));
  EXPECT_THAT(r.out, Not(HasSubstr("after lower_alu")));
  r = weft("compile conv2d --layer C12 --config vta --emit asm");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("LOAD INP"));
  EXPECT_THAT(r.out, HasSubstr("LOAD ACC"));
  EXPECT_THAT(r.out, HasSubstr("ALU ADD"));
  EXPECT_THAT(r.out, HasSubstr("GEMM"));
  r = weft("compile conv2d --layer C12 --emit llvm");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--emit llvm goes with --target llvm"));
}

}  // namespace
