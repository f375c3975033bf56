// The CPU backend through the `weft` binary: `weft run dense|conv2d --target llvm` print JSON
// that says the result is correct and save plain .npy files; `weft compile ... --target llvm
// --emit llvm` prints the optimized IR; bad targets, dtypes and shapes exit 1 with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using ::testing::HasSubstr;

struct Result {
  int code;
  std::string out;
};

Result weft(const std::string& args) {
  const std::string cmd = std::string(WEFT_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

TEST(CpuCli, RunDenseOnTheCpuAndSave) {
  const auto dir = std::filesystem::temp_directory_path() / "weft_cpu_cli_test";
  std::filesystem::remove_all(dir);
  Result r = weft("run dense --target llvm --M 13 --N 21 --K 9 --threads 2 --repeats 2 --save " +
                  dir.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
  EXPECT_THAT(r.out, HasSubstr("\"gflops\""));
  EXPECT_THAT(r.out, HasSubstr("\"wall_seconds\""));
  // float32 .npy files: 128-byte header version 1.0 plus the data.
  EXPECT_EQ(std::filesystem::file_size(dir / "input.npy"), 128u + 13 * 9 * 4);
  EXPECT_EQ(std::filesystem::file_size(dir / "weight.npy"), 128u + 21 * 9 * 4);
  EXPECT_EQ(std::filesystem::file_size(dir / "output.npy"), 128u + 13 * 21 * 4);
  std::filesystem::remove_all(dir);

  r = weft("run dense --target llvm --dtype int8 --M 5 --N 3 --K 70 --repeats 1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"output_dtype\": \"int32\""));
  EXPECT_THAT(r.out, HasSubstr("\"gops\""));
}

TEST(CpuCli, RunConv2dOnTheCpu) {
  Result r = weft(
      "run conv2d --target llvm --C 3 --H 11 --W 10 --O 20 --kernel 3 --stride 2 "
      "--pad 1 "
      "--dtype int8 --repeats 1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
  EXPECT_THAT(r.out, HasSubstr("\"OH\": 6"));
}

TEST(CpuCli, CompileEmitsLlvmIr) {
  Result r = weft("compile dense --target llvm --emit llvm --M 12 --N 32 --K 16");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("define void @dense_float32(ptr"));
  r = weft("compile conv2d --target llvm --emit llvm --layer C12");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("define void @conv2d_float32(ptr"));
}

TEST(CpuCli, BadInputsAreUserErrors) {
  Result r = weft("run dense --target gpu --M 4 --N 4 --K 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--target must be accel, llvm or cuda, not 'gpu'"));
  r = weft("run dense --target llvm --dtype bfloat16 --M 4 --N 4 --K 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("unknown dtype 'bfloat16'"));
  r = weft("run dense --target llvm --M 0 --N 4 --K 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("dense: M is 0"));
  r = weft("run dense --target llvm --M 4 --N 4 --K 4 --threads 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--threads 0"));
  r = weft("run conv2d --target llvm --C 3 --H 4 --W 4 --O 8 --kernel 7");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("kernel 7x7 is larger than the padded input 4x4"));
  r = weft("run conv2d --target llvm --C 3 --H 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("needs --layer"));
  r = weft("compile dense --emit llvm --M 4 --N 4 --K 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--emit llvm goes with --target llvm"));
}

// weft tune --target llvm writes records that weft run --target llvm then uses; --no-records
// goes back to the default schedule; a corrupt database is a clear error.
TEST(CpuCli, TuneThenRunUsesTheBestRecord) {
  const auto db = std::filesystem::temp_directory_path() / "weft_cpu_cli_tune.jsonl";
  std::filesystem::remove(db);
  Result t = weft("tune dense --target llvm --M 16 --N 32 --K 8 --trials 3 --quiet --db " +
                  db.string());
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_THAT(t.out, HasSubstr("\"best_schedule\""));
  Result r = weft("run dense --target llvm --M 16 --N 32 --K 8 --repeats 1 --tune-db " +
                  db.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"source\": \"" + db.string() + "\""));
  EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
  r = weft("run dense --target llvm --M 16 --N 32 --K 8 --repeats 1 --no-records --tune-db " +
           db.string());
  EXPECT_THAT(r.out, HasSubstr("default schedule (--no-records)"));
  {
    std::ofstream(db, std::ios::app) << "{not json\n";
  }
  r = weft("run dense --target llvm --M 16 --N 32 --K 8 --tune-db " + db.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr(db.string()));
  std::filesystem::remove(db);
}

// Any shape without a tuning record runs the kernel of the host kind's dispatch table, and the
// result names the kernel, its bucket and the table; --cpu-isa avx2 caps the host kind.
TEST(CpuCli, UntunedShapesUseTheDispatchTable) {
  Result r = weft("run dense --target llvm --M 7 --N 33 --K 1000 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
  if (r.out.find("\"host_isa\": \"generic\"") != std::string::npos) return;  // no table
  EXPECT_THAT(r.out, HasSubstr("\"source\": \"dispatch table cpu_dispatch_"));
  EXPECT_THAT(r.out, HasSubstr("\"kernel\": \"f32."));
  EXPECT_THAT(r.out, HasSubstr("\"bucket\": \"m 4..15"));
  r = weft("run dense --target llvm --dtype int8 --M 33 --N 7 --K 5 --repeats 1 --threads 2 "
           "--cpu-isa avx2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"host_isa\": \"avx2\""));
  EXPECT_THAT(r.out, HasSubstr("cpu_dispatch_avx2.json"));
  EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
  r = weft("run conv2d --target llvm --N 1 --IC 5 --H 9 --W 9 --OC 20 --K 3 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("dispatch table cpu_dispatch_"));
  r = weft("run dense --target llvm --M 4 --N 4 --K 4 --cpu-isa sse9");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--cpu-isa: unknown CPU ISA 'sse9' (native or avx2)"));
  r = weft("run dense --M 4 --N 4 --K 4 --cpu-isa avx2");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--cpu-isa"));
}

}  // namespace
