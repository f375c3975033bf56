// End-to-end tests of the `weft` binary as a user runs it: the demo pipeline checked against
// an independent reference, assembler/disassembler round trips, JSON outputs, and the exit
// codes and messages of bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Result {
  int code;
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("weft_cli_" + std::to_string(::getpid()) + "_" +
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
    return {WEXITSTATUS(status), slurp(out), slurp(err)};
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }

  fs::path dir_;
};

const std::string kExample = std::string(WEFT_SOURCE_DIR) + "/examples/gemm8x8_demo/";

TEST_F(Cli, DemoGemmMatchesAnIndependentReference) {
  ASSERT_EQ(weft("asm --config gemm8x8 " + kExample + "program.s -o " + path("p.bin")).code, 0);
  ASSERT_EQ(weft("asm --config gemm8x8 --uops " + kExample + "uops.s -o " + path("u.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 32K --at 0:" + path("p.bin") +
                 " --at 4096:" + path("u.bin") + " --random 8192:384:77")
                .code,
            0);
  const Result r = weft("sim --config gemm8x8 --engine functional --mem " + path("img.bin") +
                        " --insn-offset 0 --insn-count 10 --out " + path("out.bin") +
                        " --stats " + path("stats.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("gemm_counter      4"));

  const std::string in = slurp(path("img.bin")), out = slurp(path("out.bin"));
  ASSERT_EQ(out.size(), 32768u);
  // OUT[b][n] = clip((sum_c INP[b][c] * WGT[n][c]) >> 9, 0, 127) with INP 8x16, WGT 16x16 laid
  // out as 8x8 blocks: INP block k at 8192 + 64k, WGT block (o, k) at 8320 + 64(2o + k).
  for (int b = 0; b < 8; ++b) {
    for (int n = 0; n < 16; ++n) {
      int32_t acc = 0;
      for (int c = 0; c < 16; ++c) {
        const int8_t x = static_cast<int8_t>(in[8192 + 64 * (c / 8) + 8 * b + c % 8]);
        const int8_t w = static_cast<int8_t>(in[8320 + 64 * (2 * (n / 8) + c / 8) +
                                                8 * (n % 8) + c % 8]);
        acc += x * w;
      }
      const int32_t expect = std::min(127, std::max(0, acc >> 9));
      EXPECT_EQ(static_cast<int8_t>(out[16384 + 64 * (n / 8) + 8 * b + n % 8]), expect)
          << "b=" << b << " n=" << n;
    }
  }
  const auto stats = nlohmann::json::parse(slurp(path("stats.json")));
  EXPECT_EQ(stats["inp_load_nbytes"], 128);
  EXPECT_EQ(stats["wgt_load_nbytes"], 256);
  EXPECT_EQ(stats["uop_load_nbytes"], 24);
  EXPECT_EQ(stats["out_store_nbytes"], 128);
  EXPECT_EQ(stats["gemm_counter"], 4);
  EXPECT_EQ(stats["alu_counter"], 6);
  EXPECT_EQ(stats["insn_count"], 10);
  // Everything outside the OUT tile is untouched.
  for (size_t i = 0; i < in.size(); ++i) {
    if (i >= 16384 && i < 16384 + 128) continue;
    ASSERT_EQ(in[i], out[i]) << "byte " << i;
  }
}

TEST_F(Cli, AsmDisasmRoundTripsInTextAndJsonOnEveryConfig) {
  for (const std::string config : {"gemm8x8", "vta", "tiny"}) {
    ASSERT_EQ(weft("asm --config " + config + " " + kExample + "program.s -o " + path("a.bin")).code,
              0);
    Result text = weft("disasm --config " + config + " " + path("a.bin"));
    ASSERT_EQ(text.code, 0) << text.err;
    write("listing.s", text.out);
    ASSERT_EQ(weft("asm --config " + config + " " + path("listing.s") + " -o " + path("b.bin")).code, 0);
    EXPECT_EQ(slurp(path("a.bin")), slurp(path("b.bin"))) << config;

    Result json = weft("disasm --config " + config + " --json " + path("a.bin"));
    ASSERT_EQ(json.code, 0) << json.err;
    write("listing.jsonl", json.out);
    ASSERT_EQ(weft("asm --config " + config + " " + path("listing.jsonl") + " -o " + path("c.bin")).code,
              0);
    EXPECT_EQ(slurp(path("a.bin")), slurp(path("c.bin"))) << config;
    const auto first = nlohmann::json::parse(json.out.substr(0, json.out.find('\n')));
    EXPECT_EQ(first["opcode"], "LOAD");
    EXPECT_EQ(first["memory_type"], "UOP");
    EXPECT_EQ(first["x_size"], 6);
  }
}

TEST_F(Cli, ConfigShowJsonHasFieldPositions) {
  const Result r = weft("config show vta --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gemm"]["block_in"], 16);
  EXPECT_EQ(j["buffers"]["acc"]["depth"], 2048);
  bool found = false;
  for (const auto& f : j["formats"]["MEM"]["fields"]) {
    if (f["name"] == "dram_base") {
      EXPECT_EQ(f["lsb"], 26);
      EXPECT_EQ(f["width"], 32);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  const Result list = weft("config list --json");
  ASSERT_EQ(list.code, 0);
  EXPECT_EQ(nlohmann::json::parse(list.out)["configs"].size(), 3u);
  EXPECT_EQ(weft("config show pynq").code, 0);
  const Result bad = weft("config show gemm16");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("unknown configuration 'gemm16' (known: gemm8x8, vta, tiny)"));
}

TEST_F(Cli, BadInputGivesAClearErrorAndNoOutput) {
  Result r = weft("asm --config gemm8x8 " + path("missing.s") + " -o " + path("x.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot read '" + path("missing.s") + "'"));
  EXPECT_FALSE(fs::exists(path("x.bin")));

  write("bad.s", "LOAD INP sram_base=0\nGEMM uop_end=3 bogus=1\n");
  r = weft("asm " + path("bad.s") + " -o " + path("x.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.s:2: unknown field 'bogus' for GEMM"));
  EXPECT_FALSE(fs::exists(path("x.bin")));

  // A program without FINISH: sim fails, names the problem, writes no output image.
  write("nofinish.s", "GEMM reset_reg uop_end=0\n");
  ASSERT_EQ(weft("asm " + path("nofinish.s") + " -o " + path("nf.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 4K --at 0:" + path("nf.bin")).code, 0);
  r = weft("sim --mem " + path("img.bin") + " --insn-offset 0 --insn-count 1 --out " +
           path("o.bin") + " --stats " + path("s.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("no FINISH instruction"));
  EXPECT_FALSE(fs::exists(path("o.bin")));
  EXPECT_FALSE(fs::exists(path("s.json")));

  r = weft("sim --mem " + path("img.bin") + " --insn-offset 0 --insn-count 1000 --out " +
           path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("beyond the 4096-byte DRAM image"));

  r = weft("sim --engine warp --mem " + path("img.bin") + " --insn-offset 0 --insn-count 1 --out " +
           path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown engine 'warp' (available: functional, cycle)"));

  r = weft("sim --mem " + path("img.bin") + " --insn-offset x --insn-count 1 --out " +
           path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--insn-offset: 'x' is not a non-negative integer"));

  write("odd.bin", std::string(20, '\0'));
  r = weft("disasm " + path("odd.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a whole number of 16-byte instructions"));

  r = weft("image -o " + path("i.bin") + " --size 1K --random 1000:100");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("do not fit in the 1024-byte image"));
}

TEST_F(Cli, UsageErrorsExitTwoAndHelpExitsZero) {
  EXPECT_EQ(weft("").code, 2);
  EXPECT_EQ(weft("sim --mem").code, 2);
  const Result help = weft("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("disasm"));
  const Result sim_help = weft("sim --help");
  EXPECT_EQ(sim_help.code, 0);
  EXPECT_THAT(sim_help.out, HasSubstr("--insn-offset"));
}

// Builds the demo image (program, micro-ops, random data) in the test folder.
void build_demo(const Cli& cli, const std::function<Result(const std::string&)>& weft,
                const std::function<std::string(const std::string&)>& path) {
  ASSERT_EQ(weft("asm --config gemm8x8 " + kExample + "program.s -o " + path("p.bin")).code, 0);
  ASSERT_EQ(weft("asm --config gemm8x8 --uops " + kExample + "uops.s -o " + path("u.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 32K --at 0:" + path("p.bin") +
                 " --at 4096:" + path("u.bin") + " --random 8192:384:5")
                .code,
            0);
}

TEST_F(Cli, CycleEngineMatchesFunctionalAndWritesATimeline) {
  build_demo(*this, [this](const std::string& a) { return weft(a); },
             [this](const std::string& n) { return path(n); });
  const std::string common = "sim --config gemm8x8 --mem " + path("img.bin") +
                             " --insn-offset 0 --insn-count 10 ";
  ASSERT_EQ(weft(common + "--engine functional --out " + path("f.bin")).code, 0);
  const Result r = weft(common + "--engine cycle --platform pynq --out " + path("c.bin") +
                        " --stats " + path("s.json") + " --trace " + path("t.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("utilization"));
  EXPECT_EQ(slurp(path("f.bin")), slurp(path("c.bin")));

  const auto s = nlohmann::json::parse(slurp(path("s.json")));
  EXPECT_EQ(s["engine"], "cycle");
  EXPECT_EQ(s["platform"], "pynq");
  EXPECT_EQ(s["gemm_counter"], 4);
  const uint64_t cycles = s["cycles"];
  EXPECT_GT(cycles, 100u);
  for (const char* m : {"load", "compute", "store"}) {
    uint64_t sum = 0;
    for (const auto& [k, v] : s["modules"][m].items()) sum += v.get<uint64_t>();
    EXPECT_EQ(sum, cycles) << m;
  }
  EXPECT_EQ(s["dram"]["read_nbytes"]["wgt"], 256);

  const auto t = nlohmann::json::parse(slurp(path("t.json")));
  std::set<std::string> tracks;
  int slices = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && e.value("cat", "") == "insn") ++slices;
  }
  EXPECT_EQ(tracks, (std::set<std::string>{"fetch", "load", "compute", "store"}));
  EXPECT_EQ(slices, 10);  // one slice per instruction

  const Result svg = weft("trace render " + path("t.json") + " -o " + path("t.svg"));
  ASSERT_EQ(svg.code, 0) << svg.err;
  EXPECT_THAT(slurp(path("t.svg")), HasSubstr("<svg"));
  EXPECT_THAT(slurp(path("t.svg")), HasSubstr("instruction 4 (GEMM)"));
}

TEST_F(Cli, CycleEngineErrors) {
  write("dead.s", "GEMM pop_prev_dep uop_end=0\nFINISH\n");
  ASSERT_EQ(weft("asm " + path("dead.s") + " -o " + path("d.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 4K --at 0:" + path("d.bin")).code, 0);
  Result r = weft("sim --engine cycle --mem " + path("img.bin") +
                  " --insn-offset 0 --insn-count 2 --out " + path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("deadlock"));
  EXPECT_THAT(r.err, HasSubstr("compute module waits at instruction 0 (GEMM) for a token on the "
                               "load->compute queue"));
  EXPECT_FALSE(fs::exists(path("o.bin")));

  r = weft("sim --engine functional --trace " + path("t.json") + " --mem " + path("img.bin") +
           " --insn-offset 0 --insn-count 2 --out " + path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--trace needs --engine cycle"));
  r = weft("sim --engine cycle --platform moon --mem " + path("img.bin") +
           " --insn-offset 0 --insn-count 2 --out " + path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown platform 'moon'"));
  write("bad.json", "{not json");
  r = weft("trace render " + path("bad.json") + " -o " + path("x.svg"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("is not JSON"));
  write("other.json", "{\"a\": 1}");
  r = weft("trace render " + path("other.json") + " -o " + path("x.svg"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a Weft timeline"));
  EXPECT_FALSE(fs::exists(path("x.svg")));
}

TEST_F(Cli, SimJsonPrintsTheCounters) {
  write("fin.s", "FINISH\n");
  ASSERT_EQ(weft("asm --config tiny " + path("fin.s") + " -o " + path("f.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 64 --at 0:" + path("f.bin")).code, 0);
  const Result r = weft("sim --config tiny --json --mem " + path("img.bin") +
                        " --insn-offset 0 --insn-count 1 --out " + path("o.bin"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["insn_count"], 1);
  EXPECT_EQ(j["engine"], "functional");
  EXPECT_EQ(j["config"], "tiny");
}

}  // namespace
