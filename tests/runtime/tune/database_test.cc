// The tuning database under concurrency and after a crash (docs/reliability.md): writers that
// loaded the same file commit in turn and lose nothing (each appends only its own records under
// a lock; the file was rewritten from each writer's view before, so the last commit dropped the
// others' records), processes appending at once never interleave or lose a line, and a last
// line cut short by an interrupted append is reported and skipped on load, then cut off by the
// next commit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hardware/isa/errors.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"

namespace weft {
namespace {

using namespace compiler::tune;
using namespace rt::tune;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("weft_db_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "db.jsonl").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A record whose trial number says who wrote it.
  static TuningRecord record(int64_t trial, uint64_t seed = 1) {
    TuningRecord r;
    r.workload = dense_workload({8, 16, 32});
    r.target = accel_target("gemm8x8", "sim");
    Rng rng(trial + 1);
    r.trace.split(rng, "tile_k", 4, 2);
    r.value = 100 + double(trial);
    r.unit = "cycles";
    r.trial = trial;
    r.seed = seed;
    return r;
  }
  // Every line of the file, each checked to be one whole record.
  std::vector<TuningRecord> lines() const {
    std::ifstream in(path_);
    std::vector<TuningRecord> out;
    for (std::string l; std::getline(in, l);)
      out.push_back(TuningRecord::from_json(nlohmann::json::parse(l)));
    return out;
  }

  fs::path dir_;
  std::string path_;
};

// Two writers that loaded the same database (two `weft tune` runs resuming one file) commit in
// turn, twice each: every record of both is in the file.
TEST_F(DatabaseTest, WritersThatLoadedTheSameFileLoseNoRecord) {
  {
    Database first(path_);
    first.add(record(0));
    first.commit();
  }
  Database a(path_), b(path_);
  ASSERT_EQ(a.size(), 1u);
  for (int64_t t = 1; t <= 3; ++t) a.add(record(t, 2));
  a.commit();
  for (int64_t t = 1; t <= 2; ++t) b.add(record(t, 3));
  b.commit();
  a.add(record(4, 2));
  a.commit();
  b.add(record(3, 3));
  b.commit();
  b.commit();  // nothing new: nothing written
  const Database again(path_);
  EXPECT_EQ(again.size(), 1u + 4u + 3u);
  EXPECT_EQ(lines().size(), 8u);
  EXPECT_EQ(again.skipped_lines(), 0u);
}

// Processes appending to one file at the same time: no line lost, none torn.
TEST_F(DatabaseTest, ProcessesAppendingAtOnceNeitherLoseNorTearLines) {
  constexpr int kProcs = 4, kCommits = 25, kPerCommit = 4;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        Database db(path_);
        for (int c = 0; c < kCommits; ++c) {
          for (int i = 0; i < kPerCommit; ++i) db.add(record(c * kPerCommit + i, 10 + p));
          db.commit();
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(k, &status, 0), k);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const std::vector<TuningRecord> all = lines();  // throws on a torn line
  ASSERT_EQ(all.size(), size_t{kProcs * kCommits * kPerCommit});
  for (int p = 0; p < kProcs; ++p) {
    std::vector<bool> seen(kCommits * kPerCommit, false);
    for (const auto& r : all)
      if (r.seed == uint64_t(10 + p)) seen.at(static_cast<size_t>(r.trial)) = true;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), kCommits * kPerCommit) << "process " << p;
  }
}

// A crash in the middle of an append leaves the last line without its newline: the load says so
// and skips it; the next commit cuts it off, so the file holds whole records only.
TEST_F(DatabaseTest, ALastLineCutShortIsReportedSkippedAndCutOff) {
  {
    Database db(path_);
    db.add(record(0));
    db.add(record(1));
    db.commit();
  }
  const std::string whole = record(2).to_json().dump();
  std::ofstream(path_, std::ios::app) << whole.substr(0, whole.size() / 2);
  ::testing::internal::CaptureStderr();
  Database resumed(path_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(resumed.size(), 2u);
  EXPECT_EQ(resumed.skipped_lines(), 1u);
  EXPECT_THAT(err, HasSubstr("db.jsonl:3: the last line is cut short (an interrupted write); it "
                             "is skipped"));
  resumed.add(record(3));
  resumed.commit();
  const std::vector<TuningRecord> all = lines();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].trial, 3);
  EXPECT_EQ(Database(path_).skipped_lines(), 0u);
}

// A complete record that lacks only its newline (a file saved by an editor) is kept, and the
// next append starts on a line of its own.
TEST_F(DatabaseTest, AWholeLastRecordWithoutNewlineIsKept) {
  std::ofstream(path_) << record(0).to_json().dump();
  Database db(path_);
  EXPECT_EQ(db.size(), 1u);
  EXPECT_EQ(db.skipped_lines(), 0u);
  db.add(record(1));
  db.commit();
  EXPECT_EQ(lines().size(), 2u);
}

// A corrupt line that is not the last is still an error naming the file and line.
TEST_F(DatabaseTest, ACorruptLineInTheMiddleIsAnError) {
  std::ofstream(path_) << record(0).to_json().dump() << "\n{not json\n"
                       << record(1).to_json().dump() << "\n";
  EXPECT_THAT([&] { Database db(path_); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("db.jsonl:2: not valid JSON")));
}

// An optional field of the wrong type, or a number past an integer's range (JSON parses it
// as a double, which must not be converted), is the record's named error (a fuzzer's find).
TEST_F(DatabaseTest, AnOptionalFieldOfTheWrongTypeIsNamed) {
  const nlohmann::json good = record(3).to_json();
  EXPECT_EQ(TuningRecord::from_json(good).seed, 1u);
  const std::vector<std::pair<std::string, std::string>> bad{
      {"seed", "4444444444444444444444444444444"},
      {"seed", "-1"},
      {"seed", "1.5"},
      {"trial", "1e30"},
      {"trial", "18446744073709551615"},
      {"error", "3"},
      {"strategy", "[]"},
      {"stopped_early", "1"}};
  for (const auto& [field, value] : bad) {
    nlohmann::json j = good;
    j[field] = nlohmann::json::parse(value);
    EXPECT_THAT([&] { TuningRecord::from_json(j); },
                ::testing::ThrowsMessage<UserError>(HasSubstr("record field '" + field + "'")))
        << field << " = " << value;
  }
}

// The same inside the target and the trace: a target's config or platform that is not a
// string (fuzz_records in CI: `"config": 1e308` ended the process with nlohmann's type_error),
// and a split whose factors overflow, whose parts are 0 or whose max_inner is not an integer.
TEST_F(DatabaseTest, ANestedFieldOfTheWrongTypeIsNamed) {
  const nlohmann::json good = record(3).to_json();
  const std::vector<std::pair<std::string, std::string>> bad{
      {"/target/config", "1e308"},
      {"/target/platform", "[1]"},
      {"/trace/steps",
       R"([{"primitive": "split", "name": "s", "args": {"extent": 6, "parts": 3},
            "decision": [4294967296, 4294967296, 4294967296]}])"},
      {"/trace/steps",
       R"([{"primitive": "split", "name": "s", "args": {"extent": 1, "parts": 0},
            "decision": []}])"},
      {"/trace/steps",
       R"([{"primitive": "split", "name": "s", "args": {"extent": 4, "parts": 1,
            "max_inner": "4"}, "decision": [4]}])"}};
  for (const auto& [where, value] : bad) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(where)] = nlohmann::json::parse(value);
    EXPECT_THROW(TuningRecord::from_json(j), UserError) << where << " = " << value;
  }
}

TEST_F(DatabaseTest, ADirectoryIsRefusedByNameBeforeAnyWork) {
  EXPECT_THAT([&] { Database db(dir_.string()); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("it is a directory, not a file")));
  EXPECT_THAT([&] { Database::check_writable(dir_.string(), "--db"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("--db: cannot write '" + dir_.string() + "': it is a directory")));
  Database::check_writable((dir_ / "new" / "db.jsonl").string(), "--db");  // can be created
  EXPECT_FALSE(fs::exists(dir_ / "new"));  // and the check left nothing behind
  EXPECT_THROW(Database::check_writable("/proc/weft/db.jsonl", "--db"), UserError);
}

// lookup_best keeps each parsed file while the file stays the same: a better record appended
// after a lookup is what the next lookup finds, and so is the best of a file written anew.
TEST_F(DatabaseTest, LookupsSeeEachChangeOfTheFile) {
  const TuningRecord r0 = record(5);
  {
    Database db(path_);
    db.add(r0);
    db.commit();
  }
  auto best = lookup_best(r0.workload, r0.target, path_);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->trial, 5);
  {
    Database db(path_);
    db.add(record(1));  // 101 cycles, better than 105
    db.commit();
  }
  best = lookup_best(r0.workload, r0.target, path_);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->trial, 1);
  fs::remove(path_);
  {
    Database db(path_);
    for (int64_t t : {7, 8, 9}) db.add(record(t));
    db.commit();
  }
  best = lookup_best(r0.workload, r0.target, path_);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->trial, 7);
}

}  // namespace
}  // namespace weft
