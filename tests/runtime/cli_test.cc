// End-to-end tests of the `weft` binary as a user runs it: the demo pipeline checked against
// an independent reference, assembler/disassembler round trips, JSON outputs, the exit codes
// and messages of bad input, and outputs written all together or not at all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::AllOf;

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
                        " --insn-offset 0 --insn-count 10 --out " + path("out.bin") + " --stats " +
                        path("stats.json"));
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
        const int8_t w =
            static_cast<int8_t>(in[8320 + 64 * (2 * (n / 8) + c / 8) + 8 * (n % 8) + c % 8]);
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
    ASSERT_EQ(
        weft("asm --config " + config + " " + kExample + "program.s -o " + path("a.bin")).code, 0);
    Result text = weft("disasm --config " + config + " " + path("a.bin"));
    ASSERT_EQ(text.code, 0) << text.err;
    write("listing.s", text.out);
    ASSERT_EQ(
        weft("asm --config " + config + " " + path("listing.s") + " -o " + path("b.bin")).code, 0);
    EXPECT_EQ(slurp(path("a.bin")), slurp(path("b.bin"))) << config;

    Result json = weft("disasm --config " + config + " --json " + path("a.bin"));
    ASSERT_EQ(json.code, 0) << json.err;
    write("listing.jsonl", json.out);
    ASSERT_EQ(
        weft("asm --config " + config + " " + path("listing.jsonl") + " -o " + path("c.bin")).code,
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
  EXPECT_THAT(r.err, HasSubstr("unknown engine 'warp' (available: functional, cycle"));

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

// A command line that does not parse is bad input: exit 1 as the README says (it was 2).
TEST_F(Cli, UsageErrorsExitOneAndHelpExitsZero) {
  EXPECT_EQ(weft("").code, 1);
  EXPECT_EQ(weft("sim --mem").code, 1);
  EXPECT_EQ(weft("run dense --M 1 --N 1 --K 1 --no-such-option").code, 1);
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
  build_demo(
      *this, [this](const std::string& a) { return weft(a); },
      [this](const std::string& n) { return path(n); });
  const std::string common =
      "sim --config gemm8x8 --mem " + path("img.bin") + " --insn-offset 0 --insn-count 10 ";
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
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tracks.insert(e["args"]["name"].get<std::string>());
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
  EXPECT_THAT(r.err, HasSubstr("not valid JSON"));
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

TEST_F(Cli, DisasmCountThatWouldWrapIsRejected) {
  write("u.bin", std::string(32, '\0'));
  Result r = weft("disasm --uops " + path("u.bin") + " --count 0x4000000000000000");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--count 0x4000000000000000 from --offset 0 runs past the end"));
  r = weft("disasm --uops " + path("u.bin") + " --offset 4 --count 8");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("runs past the end"));
  r = weft("disasm --uops " + path("u.bin") + " --offset 4 --count 7");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("6: UOP dst=0 src=0 wgt=0"));
}

// The names of the files in `dir`, to see that no temporary file is left behind.
std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// An injected memory fault (docs/reliability.md): exit code 1, a message naming the module,
// the burst and the fault, and no output file at all (nor a staged one).
TEST_F(Cli, SimWithAnInjectedFaultWritesNothing) {
  build_demo(
      *this, [this](const std::string& a) { return weft(a); },
      [this](const std::string& n) { return path(n); });
  const std::string run = "sim --config gemm8x8 --engine cycle --mem " + path("img.bin") +
                          " --insn-offset 0 --insn-count 10 --out " + path("o.bin") +
                          " --stats " + path("s.json") + " --trace " + path("t.json");
  const std::set<std::string> before = files_in(dir_);
  const std::pair<std::string, std::string> faults[] = {
      {"read:slverr@0x2000", "of the load module (instruction 1) at address 0x2000"},
      {"write:decerr#0", "AXI write burst 0 of the store module"},
      {"read:noresp#0", "AXI read burst 0 of the fetch unit (instruction 0)"}};
  for (const auto& [fault, message] : faults) {
    const Result r = weft(run + " --inject-fault " + fault);
    EXPECT_EQ(r.code, 1) << fault;
    EXPECT_THAT(r.err, AllOf(HasSubstr(message), HasSubstr("injected fault"))) << fault;
    EXPECT_EQ(files_in(dir_), before) << fault;
  }
  const Result r = weft("sim --config gemm8x8 --engine functional --mem " + path("img.bin") +
                        " --insn-offset 0 --insn-count 10 --out " + path("o.bin") +
                        " --inject-fault read:slverr");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--inject-fault needs --engine cycle or rtl"));
  EXPECT_EQ(weft(run + " --inject-fault read:bogus").code, 1);
  EXPECT_EQ(files_in(dir_), before);
}

TEST_F(Cli, SimWritesAllOutputsOrNone) {
  build_demo(
      *this, [this](const std::string& a) { return weft(a); },
      [this](const std::string& n) { return path(n); });
  const std::string run = "sim --config gemm8x8 --engine cycle --mem " + path("img.bin") +
                          " --insn-offset 0 --insn-count 10 --out " + path("o.bin");
  const std::set<std::string> before = files_in(dir_);
  // An unwritable --stats: no --out either.
  Result r = weft(run + " --stats " + path("missing/s.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot write '" + path("missing/s.json") + "'"));
  EXPECT_FALSE(fs::exists(path("o.bin")));
  // An unwritable --trace: neither --out nor --stats.
  r = weft(run + " --stats " + path("s.json") + " --trace " + path("missing/t.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot write '" + path("missing/t.json") + "'"));
  EXPECT_FALSE(fs::exists(path("o.bin")));
  EXPECT_FALSE(fs::exists(path("s.json")));
  // A directory as an output.
  fs::create_directories(path("adir"));
  r = weft(run + " --stats " + path("s.json") + " --trace " + path("adir"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("is a directory"));
  fs::remove(path("adir"));
  // The same file for two outputs.
  r = weft(run + " --stats " + path("o.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("'" + path("o.bin") + "' is given for two outputs"));
  EXPECT_EQ(files_in(dir_), before);  // no output and no temporary file left behind

  // Success writes all three, and a user's file named like a temporary one is left alone.
  write("o.bin.tmp", "mine");
  r = weft(run + " --stats " + path("s.json") + " --trace " + path("t.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("o.bin")).size(), 32768u);
  EXPECT_EQ(nlohmann::json::parse(slurp(path("s.json")))["gemm_counter"], 4);
  EXPECT_TRUE(nlohmann::json::parse(slurp(path("t.json"))).contains("traceEvents"));
  EXPECT_EQ(slurp(path("o.bin.tmp")), "mine");
  std::set<std::string> after = before;
  after.insert({"o.bin", "s.json", "t.json", "o.bin.tmp"});
  EXPECT_EQ(files_in(dir_), after);
}

TEST_F(Cli, SingleFileWritesLeaveOtherFilesAlone) {
  write("fin.s", "FINISH\n");
  write("f.bin.tmp", "mine");
  const mode_t umask = ::umask(022);  // inherited by the weft process
  const int code = weft("asm " + path("fin.s") + " -o " + path("f.bin")).code;
  ::umask(umask);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(slurp(path("f.bin")).size(), 16u);
  EXPECT_EQ(slurp(path("f.bin.tmp")), "mine");
  EXPECT_EQ(files_in(dir_),
            (std::set<std::string>{"fin.s", "f.bin", "f.bin.tmp", "stdout.txt", "stderr.txt"}));
  // The new file gets the usual permissions (0666 less the umask), not mkstemp's 0600.
  EXPECT_EQ(fs::status(path("f.bin")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  const Result r = weft("asm " + path("fin.s") + " -o " + path("nodir/f.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot write '" + path("nodir/f.bin") + "'"));
}

TEST_F(Cli, SimOutputOnStandardOutputMovesTheSummaryToStderr) {
  write("fin.s", "FINISH\n");
  ASSERT_EQ(weft("asm --config tiny " + path("fin.s") + " -o " + path("f.bin")).code, 0);
  ASSERT_EQ(weft("image -o " + path("img.bin") + " --size 64 --at 0:" + path("f.bin")).code, 0);
  const std::string run =
      "sim --config tiny --mem " + path("img.bin") + " --insn-offset 0 --insn-count 1 ";
  Result r = weft(run + "--out -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(path("img.bin")));  // the image alone
  EXPECT_THAT(r.err, HasSubstr("insn_count        1"));
  EXPECT_THAT(r.err, HasSubstr("final image -> standard output"));
  r = weft(run + "--out " + path("o.bin") + " --stats - --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["insn_count"], 1);
  EXPECT_EQ(nlohmann::json::parse(r.err)["insn_count"], 1);
  r = weft(run + "--out - --stats -");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("only one of --out, --stats and --trace can be -"));
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(weft("sim --help").out, HasSubstr("standard error"));
}

TEST_F(Cli, ConfigShowPlatformIsTextUnlessJson) {
  const Result text = weft("config show pynq");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("pynq: "));
  EXPECT_THAT(text.out, HasSubstr("100 MHz, 64-bit AXI"));
  EXPECT_NE(text.out.front(), '{');
  const Result json = weft("config show pynq --json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["axi_data_bits"], 64);
}

TEST_F(Cli, NumbersWithALeadingZeroAreDecimal) {
  ASSERT_EQ(weft("image -o " + path("a.bin") + " --size 010").code, 0);
  EXPECT_EQ(fs::file_size(path("a.bin")), 10u);
  ASSERT_EQ(weft("image -o " + path("b.bin") + " --size 08").code, 0);
  EXPECT_EQ(fs::file_size(path("b.bin")), 8u);
  ASSERT_EQ(weft("image -o " + path("c.bin") + " --size 0X1K").code, 0);
  EXPECT_EQ(fs::file_size(path("c.bin")), 1024u);
  for (const char* bad : {"0x", "+1", "-1", "1.5", "99999999999999999999"}) {
    const Result r = weft("image -o " + path("d.bin") + " --size " + bad);
    EXPECT_EQ(r.code, 1) << bad;
    EXPECT_THAT(r.err, HasSubstr("--size: '" + std::string(bad) + "' is not a non-negative"));
  }
  write("prog.s", "LOAD INP sram_base=010 x_size=1\n");
  ASSERT_EQ(weft("asm " + path("prog.s") + " -o " + path("p.bin")).code, 0);
  const Result d = weft("disasm " + path("p.bin"));
  EXPECT_THAT(d.out, HasSubstr("sram_base=10 "));
}

TEST_F(Cli, TraceRenderRejectsMalformedTimelinesAsUserErrors) {
  auto render = [this](const std::string& file, const std::string& extra = "") {
    return weft("trace render " + file + " -o " + file + ".svg " + extra);
  };
  const std::string track = R"({"ph":"M","name":"thread_name","tid":1,"args":{"name":"load"}})";
  const std::string slice = R"({"ph":"X","name":"i","tid":1,"ts":2,"dur":3})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"traceEvents":[1,2]})", "traceEvents[0] is not a JSON object"},
      {R"({"traceEvents":[{"ph":"M","name":"thread_name","tid":1}]})",
       "traceEvents[0] (thread_name) has no 'args' object"},
      {R"({"traceEvents":[{"ph":"M","name":"thread_name","tid":1,"args":5}]})",
       "traceEvents[0] (thread_name) has no 'args' object"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":"X","tid":1,"ts":2,"dur":"3"}]})",
       "traceEvents[1] field 'dur' = \"3\" is not a cycle count"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":"X","tid":1,"ts":-2,"dur":3}]})",
       "traceEvents[1] field 'ts' = -2 is not a cycle count"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":"X","tid":1,"ts":1e300}]})",
       "field 'ts' = 1e+300 is not a cycle count"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":7}]})",
       "traceEvents[1] field 'ph' is not a string"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":"X","tid":2000000000,"ts":1,"dur":3}]})",
       "an event of tid 2000000000 has no track"},
      {"{\"traceEvents\":[" + track + R"(,{"ph":"X","tid":"1","ts":1,"dur":3}]})",
       "traceEvents[1] field 'tid' = \"1\" is not an integer"},
      {"{\"traceEvents\":[" + track + "," + slice + R"(,{"ph":"s","tid":1,"ts":1}]})",
       "traceEvents[2] (a flow event) has no integer or string 'id'"},
      {R"({"traceEvents":{"a":1}})", "expected a JSON object with a 'traceEvents' array"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string file = path("t" + std::to_string(i) + ".json");
    write("t" + std::to_string(i) + ".json", cases[i].first);
    const Result r = render(file);
    EXPECT_EQ(r.code, 1) << cases[i].first << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(cases[i].second)) << cases[i].first;
    EXPECT_FALSE(fs::exists(file + ".svg"));
  }

  // A huge tid is fine when it has a track; lanes follow the tracks, not the tid's value.
  write("big.json", R"({"traceEvents":[{"ph":"M","name":"thread_name","tid":2000000000,)"
                    R"("args":{"name":"far"}},{"ph":"X","name":"slice","tid":2000000000,)"
                    R"("ts":0,"dur":5}]})");
  Result r = render(path("big.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(slurp(path("big.json.svg")), HasSubstr("<text x=\"6\" y=\"60\">far</text>"));

  // --from beyond the end is an error, not silently clamped; --to beyond the end is clipped.
  write("ok.json", "{\"traceEvents\":[" + track + "," + slice + "]}");
  r = render(path("ok.json"), "--from 5");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--from 5 is beyond the end of the timeline (its last cycle is 4)"));
  r = render(path("ok.json"), "--from 4 --to 100");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(slurp(path("ok.json.svg")), HasSubstr("(cycles 4-5)"));
}

}  // namespace
