// `weft tune dense|conv2d --family` as a user runs it: a small family tuning writes the
// dispatch table next to the database and a JSON summary; `weft run` on a shape that no
// trial measured takes its knobs from the table and computes the right result; a bad family
// spec exits 1 with a clear message and leaves an existing database byte for byte as it was.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Result = weft::test::CliResult;
using weft::test::slurp;

class CliShapeGeneric : public weft::test::CliFixture {};

TEST_F(CliShapeGeneric, DenseFamilyTableThenRunDispatchesAnUnseenShape) {
  const std::string db = path("db.jsonl");
  Result r = weft("tune dense --family M=1:48 --N 64 --K 64 --config gemm8x8 --trials 6 "
                  "--reps 3 --population 12 --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trials"], 6);
  EXPECT_EQ(j["members"], 48);
  ASSERT_TRUE(fs::exists(db + ".dispatch.json"));
  const auto table = nlohmann::json::parse(slurp(db + ".dispatch.json"));
  EXPECT_EQ(table["dispatch"].size(), 48u);
  // M=29 was never measured (the homes are 1, 7, 48).
  int kernel = -1;
  for (const auto& e : table["dispatch"])
    if (e["M"] == 29) kernel = e["kernel"];
  ASSERT_GE(kernel, 0);
  const auto& k = table["kernels"][kernel]["knobs"];
  Result run = weft("run dense --M 29 --N 64 --K 64 --config gemm8x8 --tune-db " + db);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::parse(run.out)["correct"].get<bool>());
  EXPECT_THAT(run.err, HasSubstr("knobs from the tuning records: tile_m=" +
                                 std::to_string(k["tile_m"].get<int>()) + " tile_n=" +
                                 std::to_string(k["tile_n"].get<int>())));
}

TEST_F(CliShapeGeneric, Conv2dFamilyRunsCorrectly) {
  const std::string db = path("db.jsonl");
  Result r = weft("tune conv2d --family HW=7:16 --IC 16 --OC 16 --kernel 3 --pad 1 "
                  "--config gemm8x8 --trials 4 --reps 2 --population 8 --quiet --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["members"], 10);
  Result run = weft("run conv2d --H 11 --W 11 --IC 16 --OC 16 --kernel 3 --pad 1 "
                    "--config gemm8x8 --tune-db " + db);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::parse(run.out)["correct"].get<bool>());
  EXPECT_THAT(run.err, HasSubstr("knobs from the tuning records"));
}

TEST_F(CliShapeGeneric, BadFamilyIsAClearErrorAndTheDatabaseStays) {
  const std::string db = path("db.jsonl");
  { std::ofstream(db) << ""; }
  const std::string before = slurp(db);
  struct Case {
    std::string args, message;
  } cases[] = {
      {"tune dense --family K=1:8", "dense varies M, not 'K'"},
      {"tune dense --family M=9:3", "need 1 <= LO <= HI"},
      {"tune dense --family M=1-8", "expected M=LO:HI"},
      {"tune conv2d --family M=7:14", "conv2d varies HW, not 'M'"},
      {"tune resnet18 --family M=1:8", "shape families exist for dense"},
      {"tune dense --family M=1:8 --target llvm", "--target accel only"},
      {"tune dense --family M=1:8 --trials 0", "--trials must be at least 1"},
  };
  for (const auto& c : cases) {
    Result r = weft(c.args + " --db " + db);
    EXPECT_EQ(r.code, 1) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(slurp(db), before) << c.args;
    EXPECT_FALSE(fs::exists(db + ".dispatch.json")) << c.args;
  }
  Result r = weft("tune dense --family M=1:8");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--family needs --db FILE"));
}

}  // namespace
