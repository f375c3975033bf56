// `weft tune` as a user runs it: a small dense tuning run writes the database and a JSON
// summary whose per-trial convergence has one value per trial; `weft run dense` then takes its
// knobs from that database; bad input (--trials 0, an unknown strategy, a corrupt or
// mismatched database, an ONNX model before #12) exits 1 with a clear message and leaves an
// existing database byte for byte as it was.
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

class CliTune : public weft::test::CliFixture {};

const char* kDense = "tune dense --M 16 --N 64 --K 128 --config gemm8x8 --per-round 2 ";

TEST_F(CliTune, TunesDenseWritesDbAndSummaryThenRunUsesIt) {
  const std::string db = path("db.jsonl");
  Result r = weft(std::string(kDense) + "--trials 4 --seed 3 --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("[dense] 4/4 trials, best"));
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tasks"].size(), 1u);
  const auto& t = j["tasks"][0];
  EXPECT_EQ(t["trials"], 4);
  EXPECT_EQ(t["best_after_trial"].size(), 4u);
  EXPECT_GT(t["best"].get<double>(), 0);
  EXPECT_EQ(t["best_after_trial"].back(), t["best"]);
  EXPECT_TRUE(t["best_trace"].contains("steps"));
  std::ifstream in(db);
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_GE(lines, 4);
  // Same seed again on a fresh database: the same best.
  Result again = weft(std::string(kDense) + "--trials 4 --seed 3 --quiet --workers 2");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["tasks"][0]["best"], t["best"]);
  // weft run dense picks the recorded best.
  Result run = weft("run dense --M 16 --N 64 --K 128 --tune-db " + db);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("knobs from the tuning records"));
  EXPECT_EQ(nlohmann::json::parse(run.out)["cycles"].get<double>(), t["best"].get<double>());
}

TEST_F(CliTune, BadInputIsAClearErrorAndTheDbIsUntouched) {
  const std::string db = path("db.jsonl");
  ASSERT_EQ(weft(std::string(kDense) + "--trials 2 --quiet --db " + db).code, 0);
  const std::string before = slurp(db);
  Result r = weft(std::string(kDense) + "--trials 0 --db " + db);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--trials must be at least 1"));
  r = weft(std::string(kDense) + "--strategy greedy --db " + db);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("not one of random, evolutionary, model"));
  r = weft("tune model.onnx --db " + db);  // no such model
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("model.onnx"));
  EXPECT_EQ(slurp(db), before);
  // A corrupt line: named, and the file is left as it was.
  { std::ofstream(db, std::ios::app) << "{\"workload\": 3}\n"; }
  const std::string corrupt = slurp(db);
  r = weft(std::string(kDense) + "--trials 2 --db " + db);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("db.jsonl:"));
  EXPECT_EQ(slurp(db), corrupt);
  // A record of the same workload whose trace belongs to another space: mismatched.
  const std::string other = path("other.jsonl");
  {
    std::istringstream lines(before);
    std::string first;
    std::getline(lines, first);
    auto rec = nlohmann::json::parse(first);
    rec["trace"]["steps"][0]["args"]["choices"] = {1, 3};
    rec["trace"]["steps"][0]["decision"] = {0};
    std::ofstream(other) << rec.dump() << "\n";
  }
  const std::string other_before = slurp(other);
  r = weft(std::string(kDense) + "--trials 2 --db " + other);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not match this space"));
  EXPECT_EQ(slurp(other), other_before);
}

// Two `weft tune` runs writing one database at once (docs/reliability.md): every record of both
// is there and every line is one whole record; the runs were rewriting the file from their own
// view, so the one that committed last dropped the other's records.
TEST_F(CliTune, TwoTunesWritingOneDatabaseAtOnceLoseNothing) {
  const std::string run = std::string(WEFT_BIN) + " " + kDense + "--trials 6 --quiet --seed ";
  // Each alone, to count its records.
  ASSERT_EQ(weft(std::string(kDense) + "--trials 6 --quiet --seed 3 --db " + path("a.jsonl")).code, 0);
  ASSERT_EQ(weft(std::string(kDense) + "--trials 6 --quiet --seed 4 --db " + path("b.jsonl")).code, 0);
  auto count = [&](const std::string& f, int seed) {
    std::ifstream in(path(f));
    int n = 0;
    for (std::string l; std::getline(in, l);) {
      const auto j = nlohmann::json::parse(l);  // a torn line throws
      if (seed < 0 || j["seed"] == seed) ++n;
    }
    return n;
  };
  const int a = count("a.jsonl", -1), b = count("b.jsonl", -1);
  ASSERT_GE(a, 6);
  // Both at once, on one file.
  const std::string both = "(" + run + "3 --db " + path("ab.jsonl") + " >/dev/null & " + run +
                           "4 --db " + path("ab.jsonl") + " >/dev/null & wait)";
  ASSERT_EQ(std::system(("sh -c '" + both + "'").c_str()), 0);
  EXPECT_EQ(count("ab.jsonl", 3), a);
  EXPECT_EQ(count("ab.jsonl", 4), b);
  EXPECT_EQ(count("ab.jsonl", -1), a + b);
}

// A last line cut short (a tune killed in the middle of an append) is reported and skipped on
// resume, and the resumed run leaves only whole records.
TEST_F(CliTune, AResumeSkipsALastLineCutShort) {
  const std::string db = path("db.jsonl");
  ASSERT_EQ(weft(std::string(kDense) + "--trials 2 --quiet --db " + db).code, 0);
  std::istringstream lines(slurp(db));
  std::string first;
  std::getline(lines, first);
  { std::ofstream(db, std::ios::app) << first.substr(0, first.size() / 2); }
  const Result r = weft(std::string(kDense) + "--trials 4 --quiet --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the last line is cut short (an interrupted write); it is skipped"));
  std::ifstream in(db);
  for (std::string l; std::getline(in, l);) EXPECT_NO_THROW(nlohmann::json::parse(l)) << l;
}

}  // namespace
