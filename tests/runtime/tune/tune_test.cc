// Unit tests of the tuner: traces (sampling keeps decisions valid, JSON round trips, mutation
// keeps the structure), the accelerator spaces (replay gives the knobs, an over-large tile is
// an invalid candidate with the buffer named, a trace of another space is refused), the
// features (fixed length, differ between schedules), the database (atomic rewrite, a corrupt
// line named with its line number and the file left untouched), and the search (the same seed
// gives the same trials at 1 and 2 workers, the analytic seed is measured first, random and
// evolutionary each find a valid best, the XGBoost ranker orders what it was trained on).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/tune/accel_features.h"
#include "compiler/tune/accel_space.h"
#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"
#include "runtime/tune/search.h"
#include "runtime/tune/thread_runner.h"

namespace weft {
namespace {

using namespace compiler::tune;
using namespace rt::tune;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// A small conv2d (56x56 is the slow part of ResNet; 14x14 keeps a measurement short).
compiler::ops::Conv2dShape small_conv() { return {8, 14, 14, 64, 64, 3, 1, 1}; }

TEST(Trace, SplitsArePerfectAndChoicesInRange) {
  Rng rng(7);
  for (int i = 0; i < 200; ++i) {
    Trace t;
    auto f = t.split(rng, "x", 96, 3, 8);
    EXPECT_EQ(f[0] * f[1] * f[2], 96);
    EXPECT_LE(f[2], 8);
    size_t c = t.choose(rng, "v", nlohmann::json::array({1, 2, 4}));
    EXPECT_LT(c, 3u);
    for (const Step& s : t.steps) EXPECT_EQ(check_step(s), "");
    Trace m = mutate_trace(t, rng);
    ASSERT_EQ(m.steps.size(), t.steps.size());
    for (const Step& s : m.steps) EXPECT_EQ(check_step(s), "") << m.key();
  }
}

TEST(Trace, JsonRoundTripAndBadDecisions) {
  Rng rng(3);
  Trace t;
  t.split(rng, "tile_k", 64, 2);
  t.choose(rng, "axis", nlohmann::json::array({"m", "n"}));
  const Trace back = Trace::from_json(nlohmann::json::parse(t.to_json().dump()));
  EXPECT_EQ(back, t);
  EXPECT_EQ(back.key(), t.key());
  nlohmann::json bad = t.to_json();
  bad["steps"][0]["decision"] = {3, 7};
  EXPECT_THROW(
      {
        try {
          Trace::from_json(bad);
        } catch (const UserError& e) {
          EXPECT_THAT(e.what(), HasSubstr("multiply to 21, not its extent 64"));
          throw;
        }
      },
      UserError);
}

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.uniform(0, 1000), b.uniform(0, 1000));
}

TEST(AccelSpace, ReplayRejectAndForeignTrace) {
  const auto& l = isa::layout_for("gemm8x8");
  const auto& p = isa::find_platform("sim");
  AccelConv2dSpace space(l, p, small_conv(), {});
  compiler::ops::Conv2dKnobs k{2, 14, 2, 4, 2, 'o'};
  const Trace t = space.trace_of(k);
  const Candidate c = space.apply(t);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.as<AccelBody>()->conv_knobs.tile_oc, 4);
  EXPECT_EQ(space.knobs_of(t).describe(), k.describe());
  // Too big for the accumulator buffer with four threads: an invalid candidate, not a throw.
  const Candidate bad = space.apply(space.trace_of({14, 14, 8, 8, 4, 'o'}));
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.error, HasSubstr("buffer"));
  // A trace made for another shape does not belong here.
  AccelConv2dSpace other(l, p, {8, 28, 28, 32, 32, 3, 1, 1}, {});
  Rng rng(1);
  EXPECT_THAT(space.check_trace(other.sample(rng)), HasSubstr("does not belong"));
  EXPECT_FALSE(space.seeds().empty());
}

// A task's candidate carries the runtime's build from validation to the measurer (a trial
// compiles once); measuring it gives the same cycles as building afresh, and the features
// read the same program.
TEST(AccelSpace, TaskCandidatesCarryTheirBuild) {
  const auto& l = isa::layout_for("gemm8x8");
  const auto& p = isa::find_platform("sim");
  const Task task = make_accel_conv2d_task("c", "gemm8x8", "sim", small_conv());
  AccelConv2dSpace plain(l, p, small_conv(), {});
  const compiler::ops::Conv2dKnobs k{2, 14, 2, 4, 2, 'o'};
  const Candidate carried = task.space->apply(plain.trace_of(k));
  const Candidate fresh = plain.apply(plain.trace_of(k));
  ASSERT_TRUE(carried.ok()) << carried.error;
  ASSERT_TRUE(fresh.ok()) << fresh.error;
  EXPECT_NE(carried.as<AccelBody>()->prepared, nullptr);
  EXPECT_EQ(fresh.as<AccelBody>()->prepared, nullptr);
  const MeasureResult a = task.measurer->measure(carried);
  const MeasureResult b = task.measurer->measure(fresh);
  ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error;
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(task.features->extract(carried), task.features->extract(fresh));
  // An over-large tile is still an invalid candidate naming the buffer.
  const Candidate bad = task.space->apply(plain.trace_of({14, 14, 8, 8, 4, 'o'}));
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.error, HasSubstr("buffer"));
}

TEST(AccelFeatures, FixedLengthAndInformative) {
  const auto& l = isa::layout_for("gemm8x8");
  const auto& p = isa::find_platform("sim");
  AccelConv2dSpace space(l, p, small_conv(), {});
  AccelFeatures f(l, p);
  const auto a = f.extract(space.apply(space.trace_of({1, 14, 8, 8, 1, 'o'})));
  const auto b = f.extract(space.apply(space.trace_of({14, 14, 1, 1, 1, 'o'})));
  ASSERT_EQ(a.size(), f.size());
  ASSERT_EQ(b.size(), f.size());
  EXPECT_NE(a, b);
}

TEST(Database, AtomicCommitAndCorruptLine) {
  const fs::path dir = fs::temp_directory_path() / ("weft_tune_db_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "db.jsonl").string();
  {
    Database db(path);
    TuningRecord r;
    r.workload = dense_workload({8, 16, 32});
    r.target = accel_target("gemm8x8", "sim");
    Rng rng(1);
    r.trace.split(rng, "tile_k", 4, 2);
    r.value = 100;
    r.unit = "cycles";
    db.add(r);
    r.value = 50;
    r.error = "ACC buffer";
    db.add(r);
    db.commit();
  }
  Database again(path);
  ASSERT_EQ(again.size(), 2u);
  auto best = again.best(dense_workload({8, 16, 32}).key(), accel_target("gemm8x8", "sim").key());
  ASSERT_TRUE(best);
  EXPECT_EQ(best->value, 100);  // the failed record never wins
  std::ofstream(path, std::ios::app) << "{not json\n";
  const auto before = fs::file_size(path);
  try {
    Database broken(path);
    FAIL() << "a corrupt database loaded";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("db.jsonl:3: not valid JSON"));
  }
  EXPECT_EQ(fs::file_size(path), before);
  fs::remove_all(dir);
}

std::vector<double> run_search(Strategy s, int workers, uint64_t seed, int64_t trials,
                               Database* db = nullptr) {
  std::vector<Task> tasks = {make_accel_conv2d_task("c", "gemm8x8", "sim", small_conv())};
  SearchOptions o;
  o.strategy = s;
  o.trials = trials;
  o.seed = seed;
  o.batch = 4;
  o.population = 32;
  ThreadRunner runner(workers);
  auto res = tune(tasks, o, runner, db);
  EXPECT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].trials, trials);
  EXPECT_GT(res[0].best, 0);
  return res[0].best_after_trial;
}

TEST(Search, SameSeedSameTrialsAtAnyWorkerCount) {
  EXPECT_EQ(run_search(Strategy::kEvolutionary, 1, 5, 8),
            run_search(Strategy::kEvolutionary, 2, 5, 8));
  EXPECT_EQ(run_search(Strategy::kRandom, 1, 5, 8), run_search(Strategy::kRandom, 2, 5, 8));
}

TEST(Search, EvolutionaryStartsFromTheChooserAndNeverLosesIt) {
  const auto evo = run_search(Strategy::kEvolutionary, 2, 1, 8);
  // The first trial is the analytic chooser's pick (vthreads 2).
  const auto& l = isa::layout_for("gemm8x8");
  const auto chosen = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"),
                                                       small_conv(), 2, 1)[0];
  auto task = make_accel_conv2d_task("c", "gemm8x8", "sim", small_conv());
  const auto* space = dynamic_cast<const AccelConv2dSpace*>(task.space.get());
  const auto m = task.measurer->measure(space->apply(space->trace_of(chosen)));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(evo.front(), m.value);
  EXPECT_LE(evo.back(), m.value);
}

TEST(Search, ResumesFromTheDatabaseAndRecordsInvalidCandidates) {
  Database db;
  run_search(Strategy::kRandom, 1, 2, 6, &db);
  size_t invalid = 0;
  for (const auto& r : db.all()) invalid += !r.ok();
  EXPECT_GE(db.size(), 6u);
  const size_t first = db.size();
  // A second run on the same database measures only new schedules.
  run_search(Strategy::kRandom, 1, 2, 6, &db);
  std::set<std::string> keys;
  size_t measured = 0;
  for (const auto& r : db.all())
    if (r.ok()) {
      keys.insert(r.trace.key());
      ++measured;
    }
  EXPECT_EQ(keys.size(), measured);
  EXPECT_GT(db.size(), first);
  (void)invalid;
}

TEST(Search, ImpossibleSpaceIsAClearError) {
  // A 17x17 kernel needs 289 input (and weight) blocks even at the smallest tiles: the tiny
  // configuration's buffers hold 256, so no schedule fits. The task is refused when it is
  // made, before any search, naming the first buffer that overflows.
  try {
    make_accel_conv2d_task("huge", "tiny", "sim", {1, 20, 20, 4, 4, 17, 1, 0});
    FAIL() << "an impossible space was built";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tune huge"));
    EXPECT_THAT(e.what(), HasSubstr("no valid schedule"));
    EXPECT_THAT(e.what(), HasSubstr("the INP tiles need 289 blocks"));
  }
}

TEST(CostModel, RanksWhatItLearned) {
  if (!xgboost_available()) GTEST_SKIP() << "built without XGBoost";
  auto m = make_xgboost_model(1, 0, 30);
  std::vector<std::vector<float>> x;
  std::vector<double> y;
  std::vector<int> g;
  for (int i = 0; i < 40; ++i) {
    x.push_back({float(i), float(i % 3)});
    y.push_back(1000 - 10 * i);  // larger feature 0: cheaper
    g.push_back(i % 2);
  }
  m->train(x, y, g);
  ASSERT_TRUE(m->trained());
  const auto s = m->predict({{5, 0}, {35, 0}});
  EXPECT_GT(s[1], s[0]);
  // Same data, same seed: the same scores.
  auto m2 = make_xgboost_model(1, 0, 30);
  m2->train(x, y, g);
  EXPECT_EQ(m2->predict({{5, 0}, {35, 0}}), s);
}

TEST(Search, ModelStrategyRuns) {
  if (!xgboost_available()) GTEST_SKIP() << "built without XGBoost";
  const auto a = run_search(Strategy::kModel, 1, 3, 12);
  EXPECT_EQ(a, run_search(Strategy::kModel, 2, 3, 12));
}

}  // namespace
}  // namespace weft
