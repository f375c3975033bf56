// The defects a new user met (issue #30's audit), each as the user met it through the `weft`
// binary: a directory given where a file is read, output paths found bad only after the work,
// options checked only after compiling, options that contradict each other or that the chosen
// mode ignores, one option name with two meanings, messages that do not name the bad value,
// long runs that print nothing, a warning printed once per layer. Every case is bad input:
// exit code 1, a message naming what and where, no output written, and (where the work takes
// long) nothing done before the error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using Result = weft::test::CliResult;

// A small ResNet that compiles in about a second.
const char* kSmall = "--image 32 --width 16 --stages 2 --classes 10 --knob-cache ''";

class CliAudit : public weft::test::CliFixture {
 protected:
  // Nothing in the test's folder but what the test made itself and the captured streams.
  std::vector<std::string> outputs() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n != "stdout.txt" && n != "stderr.txt" && n != "d" && n != "in.s") out.push_back(n);
    }
    return out;
  }
  void expect_user_error(const Result& r, const std::string& message) const {
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(r.err, Not(HasSubstr("internal error")));
  }
};

// A directory where a file is read was "internal error (please report): basic_filebuf::underflow
// ... Is a directory" (exit 3).
TEST_F(CliAudit, ADirectoryGivenWhereAFileIsReadNamesThePath) {
  const std::string d = path("d");
  fs::create_directories(d);
  const std::string is_dir = "cannot read '" + d + "': it is a directory, not a file";
  expect_user_error(weft("asm " + d + " -o " + path("p.bin")), is_dir);
  expect_user_error(weft("disasm " + d), is_dir);
  expect_user_error(weft("sim --mem " + d + " --insn-offset 0 --insn-count 1 --out " + path("o.bin")),
                    is_dir);
  expect_user_error(weft("image -o " + path("i.bin") + " --size 1K --at 0:" + d), is_dir);
  expect_user_error(weft("trace render " + d + " -o " + path("t.svg")), is_dir);
  expect_user_error(weft("xclbin-info " + d), is_dir);
  expect_user_error(weft("run " + d + " --input " + path("x.npy")), "the model: " + is_dir);
  std::ofstream(path("m.onnx")) << "not a model";
  expect_user_error(weft("run " + path("m.onnx") + " --input " + d), "--input: " + is_dir);
  EXPECT_THAT(outputs(), ::testing::ElementsAre("m.onnx"));
}

// `run resnet18 --save /proc/x` was an internal error after 4.4 s of work, `tune --db DIR` said
// "cannot replace it (Success)": every output path is checked first, with the real reason.
TEST_F(CliAudit, OutputPathsAreCheckedBeforeAnyWorkWithTheRealReason) {
  const std::string d = path("d");
  fs::create_directories(d);
  Result r = weft(std::string("run resnet18 ") + kSmall + " --listing --save /proc/weft-x");
  expect_user_error(r, "--save: cannot write into '/proc/weft-x': cannot create the folder");
  EXPECT_EQ(r.out, "");  // nothing compiled: the listing comes after compiling
  r = weft(std::string("run resnet18 ") + kSmall + " --listing --trace " + d);
  expect_user_error(r, "--trace: cannot write '" + d + "': it is a directory, not a file");
  EXPECT_EQ(r.out, "");
  r = weft("run resnet18 --image 32 --width 16 --stages 2 --classes 10 --listing --knob-cache "
           "/proc/weft-x/k.json");
  expect_user_error(r, "--knob-cache: cannot write '/proc/weft-x/k.json'");
  EXPECT_EQ(r.out, "");
  r = weft("tune dense --M 16 --N 16 --K 16 --trials 1 --db " + d);
  expect_user_error(r, "--db: cannot write '" + d + "': it is a directory, not a file");
  EXPECT_THAT(r.err, Not(HasSubstr("trials")));  // no progress line: nothing was measured
  r = weft("tune dense --M 16 --N 16 --K 16 --trials 1 --summary /proc/weft-x/s.json");
  expect_user_error(r, "--summary: cannot write '/proc/weft-x/s.json'");
  r = weft("run dense --M 16 --N 16 --K 16 --trace /proc/weft-x/t.json");
  expect_user_error(r, "--trace: cannot write '/proc/weft-x/t.json'");
  EXPECT_EQ(r.out, "");
  r = weft("bench resnet18 --layers C12 --save /proc/weft-x");
  expect_user_error(r, "--save: cannot write into '/proc/weft-x'");
  EXPECT_THAT(outputs(), ::testing::IsEmpty());
}

// `run resnet18 --engine warp` failed only after compiling (4.9 s).
TEST_F(CliAudit, AnUnknownEngineIsRefusedBeforeCompiling) {
  const Result r = weft(std::string("run resnet18 ") + kSmall + " --listing --engine warp");
  expect_user_error(r, "--engine 'warp' is not an engine here (functional, cycle, ");
  EXPECT_EQ(r.out, "");
  expect_user_error(weft("run dense --M 8 --N 8 --K 8 --engine warp"), "--engine 'warp'");
}

// Options that contradict each other, or that the chosen mode ignores, were silently dropped.
TEST_F(CliAudit, ConflictingOrIgnoredOptionsAreErrors) {
  expect_user_error(weft("run conv2d --layer C12 --H 10"),
                    "--H goes with a shape of your own, not with --layer C12");
  expect_user_error(weft("run dense --M 8 --N 8 --K 8 --target llvm --engine rtl"),
                    "--engine goes with --target accel (--target llvm runs on the host CPU)");
  expect_user_error(weft("run dense --M 8 --N 8 --K 8 --threads 2"),
                    "--threads goes with --target llvm or cuda");
  expect_user_error(weft("compile dense --M 16 --N 16 --K 16 --emit asm --pass detect_dma"),
                    "--pass goes with --emit ir");
  expect_user_error(weft("tune dense --layer C2"), "--layer goes with conv2d or resnet18, not dense");
  expect_user_error(weft("tune dense --H 7"), "--H goes with conv2d, not dense");
  expect_user_error(weft("tune conv2d --layer C2 --IC 3"),
                    "--IC goes with a shape of your own, not with --layer");
  expect_user_error(weft("run dense --M 16 --N 16 --K 16 --tile-m 0"),
                    "--tile-m 0 is out of range (at least 1; leave it out to have it chosen)");
  expect_user_error(weft("run conv2d --layer C12 --tile-oc 0"), "--tile-oc 0 is out of range");
  expect_user_error(weft("bench resnet18 --layers ,"), "--layers ',' names no layer");
  expect_user_error(weft("tune resnet18 --layers , --trials 1"), "--layers ',' has an empty name");
  expect_user_error(weft("run dense --M 16 --N 16 --K 16 --tune-db " + path("missing.jsonl")),
                    "--tune-db: cannot read '" + path("missing.jsonl") + "': No such file");
  expect_user_error(weft("run dense --M 16 --N 16 --K 16 --xrt-emulate cycle"),
                    "--xrt-emulate goes with --engine xrt (not cycle)");
  expect_user_error(weft("run dense --M 16 --N 16 --K 16 --engine xrt"),
                    "--engine xrt needs --xclbin FILE (a board) or --xrt-emulate rtl|cycle");
  expect_user_error(weft(std::string("run resnet18 ") + kSmall + " --no-records --tune-db x"),
                    "--tune-db: cannot read 'x'");
  expect_user_error(weft(std::string("run resnet18 ") + kSmall + " --inject-fault read:slverr#0 "
                         "--engine functional"),
                    "--inject-fault needs --engine cycle or rtl, or xrt with --xrt-emulate");
  EXPECT_THAT(outputs(), ::testing::IsEmpty());
}

// `tune conv2d --K` was the dense reduction while `run conv2d --K` is the kernel, and `--batch`
// meant candidates per round in tune but images in run. Now each name means one thing: for
// conv2d --K (or --kernel) is the kernel and --N (or --batch) the batch, in tune as in run;
// the candidates per round are --per-round.
TEST_F(CliAudit, AnOptionNameMeansOneThingAcrossVerbs) {
  const Result r = weft("tune conv2d --H 8 --W 8 --IC 16 --OC 16 --K 1 --pad 0 --batch 2 "
                        "--trials 2 --per-round 2 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto shape = nlohmann::json::parse(r.out)["tasks"][0]["workload"]["shape"];
  EXPECT_EQ(shape["k"], 1) << shape;
  EXPECT_EQ(shape["n"], 2) << shape;
  expect_user_error(weft("tune conv2d --N 2 --batch 2"), "--N and --batch both give the conv2d batch");
  expect_user_error(weft("tune dense --batch 4"), "--batch goes with conv2d, not dense");
  // The old names are refused, not taken for something else: tune's --batch-size (the batch is
  // --N or --batch), bench's --out (its folder is --save, as for run; sim's --out is a file),
  // trace render's --width (its pixels are --pixels; resnet18's --width is channels).
  expect_user_error(weft("tune dense --batch-size 4"), "--batch-size");
  expect_user_error(weft("bench resnet18 --out " + path("b")), "--out");
  expect_user_error(weft("trace render t.json -o t.svg --width 500"), "--width");
}

// Messages name the bad value and the valid choices.
TEST_F(CliAudit, MessagesNameTheBadValueAndTheChoices) {
  expect_user_error(weft("run dense --M 8 --N 8 --K 8 --dtype bfloat7"),
                    "--dtype: unknown dtype 'bfloat7'");
  std::ofstream(path("bin.s"), std::ios::binary) << std::string("\x7f" "ELF\0\0\x01", 7);
  expect_user_error(weft("asm " + path("bin.s") + " -o " + path("p.bin")),
                    "is a binary file (a NUL byte at offset 4), not assembly text");
  // A .npy of float64: its type is named (the reader's own test covers the rest).
  const std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  std::string header = h + std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
  npy += static_cast<char>(header.size());
  npy += '\0';
  npy += header + std::string(8, '\0');
  std::ofstream(path("c.npy"), std::ios::binary) << npy;
  expect_user_error(weft(std::string("run resnet18 ") + kSmall + " --calibrate " + path("c.npy")),
                    "its elements are float64 ('<f8')");
}

// A long run printed nothing for 18 to 100 s: its phases go to stderr (at once with --progress,
// else once it has taken a second).
TEST_F(CliAudit, ANetworkRunShowsItsPhasesOnStderr) {
  const Result r = weft(std::string("run resnet18 ") + kSmall + " --progress --check");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("weft run resnet18: compiling the network (graph passes)"));
  EXPECT_THAT(r.err, HasSubstr("weft run resnet18: running the network on the cycle engine"));
  EXPECT_THAT(r.err, HasSubstr("weft run resnet18: checking: the int8 reference interpreter"));
}

// A knob cache that cannot be written was warned about once per layer (16 times).
TEST_F(CliAudit, AnUnwritableKnobCacheIsWarnedAboutOnce) {
  // The default cache under a folder that cannot exist.
  const std::string env_run =
      "env XDG_CACHE_HOME=/proc/weft-x " + std::string(WEFT_BIN) +
      " run resnet18 --image 32 --width 16 --stages 2 --classes 10 --tune 2 --no-records >" +
      path("o.txt") + " 2>" + path("e.txt");
  ASSERT_EQ(std::system(env_run.c_str()), 0);
  const std::string err = weft::test::slurp(path("e.txt"));
  size_t count = 0;
  for (size_t at = err.find("could not save the knob cache"); at != std::string::npos;
       at = err.find("could not save the knob cache", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << err;
}

// `run conv2d --target llvm --save` wrote no bias.npy though --help listed it, and its JSON named
// the shape's keys C/O/KH/KW where the accelerator's says IC/OC/K. The help now says which
// files each target writes, and the keys are the same.
TEST_F(CliAudit, Conv2dSavesWhatItsHelpSaysWithTheSameShapeKeysOnEveryTarget) {
  const Result help = weft("run conv2d --help");
  EXPECT_THAT(help.out, HasSubstr("on the accelerator bias.npy"));
  EXPECT_THAT(help.out, HasSubstr("--target llvm and cuda compute the convolution alone"));
  const char* shape = "run conv2d --H 6 --W 5 --IC 8 --OC 8 --K 3 --pad 1 --save ";
  const Result accel = weft(std::string(shape) + path("a"));
  ASSERT_EQ(accel.code, 0) << accel.err;
  EXPECT_TRUE(fs::exists(path("a/bias.npy")));
  const Result llvm = weft(std::string(shape) + path("l") + " --target llvm --repeats 1");
  if (llvm.err.find("not built") != std::string::npos) GTEST_SKIP() << "no CPU backend";
  ASSERT_EQ(llvm.code, 0) << llvm.err;
  for (const char* f : {"input.npy", "weight.npy", "output.npy"})
    EXPECT_TRUE(fs::exists(path(std::string("l/") + f))) << f;
  EXPECT_FALSE(fs::exists(path("l/bias.npy")));
  const auto a = nlohmann::json::parse(accel.out)["shape"], l = nlohmann::json::parse(llvm.out)["shape"];
  for (const char* k : {"N", "H", "W", "IC", "OC", "K", "stride", "pad", "OH", "OW"}) {
    EXPECT_TRUE(a.contains(k)) << k << a;
    EXPECT_EQ(l[k], a[k]) << k << l;
  }
}

}  // namespace
