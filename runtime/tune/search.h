// The search drivers: random sampling, evolutionary search (seeded with the space's seeds,
// measured elites and random samples), and model-guided search (an XGBoost ranker picks what
// to measure from a mutated population, retrained after every batch). A task scheduler
// spreads a trial budget over several tasks by their weights (a network's layers by their
// share of its time). Measuring goes through a Runner (a thread pool here, MPI workers in
// runtime/tune/mpi_runner), and every decision depends only on the seed and on measured
// values, so the same seed finds the same best at any number of workers.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/tune/database.h"
#include "runtime/tune/task.h"

namespace weft::rt::tune {

enum class Strategy { kRandom, kEvolutionary, kModel };
/// "random" / "evolutionary" / "model"; UserError otherwise.
Strategy parse_strategy(const std::string& s);
std::string strategy_name(Strategy s);

struct SearchOptions {
  Strategy strategy = Strategy::kEvolutionary;
  int64_t trials = 64;        // measured trials over all tasks (invalid candidates not counted)
  uint64_t seed = 1;
  int batch = 8;              // candidates measured per round
  int population = 48;        // model: candidates scored per round
  double early_stop = 2.0;    // stop a measurement at early_stop x the task's best
  int max_invalid = 4096;     // invalid candidates tolerated per task before giving up
};

/// What Runner::prepare does besides compiling the traces.
struct PrepareSpec {
  bool features = false;  // extract the features of the valid candidates
  // Measure each valid candidate right after compiling it, on the same worker with the same
  // build, with this early-stop threshold (one pass over the workers instead of two).
  bool measure = false;
  double stop_above = std::numeric_limits<double>::infinity();
  // Compile only the shortest prefix of the traces that holds `want` valid candidates (all of
  // them when fewer are valid); the traces after it come back uncompiled. The prefix does not
  // depend on the number of workers or on which finished first.
  size_t want = std::numeric_limits<size_t>::max();
};

/// Candidates applied (compiled and validated) by a Runner, with their features when asked.
struct Prepared {
  std::vector<compiler::tune::Candidate> cands;    // in the order of the traces
  std::vector<std::vector<float>> features;         // per candidate when asked (empty if not ok)
  std::vector<std::optional<MeasureResult>> measured;  // per candidate, when measured already
  size_t compiled = 0;  // traces [0, compiled) were compiled; the rest were not (`want` reached)
};

/// Measures candidates of one task, possibly in parallel. The results come back in order.
class Runner {
 public:
  virtual ~Runner() = default;
  /// Applies the traces (compile + validation, the expensive part of proposing), extracts the
  /// features and measures the valid ones as `spec` asks. By default on this process's
  /// threads (workers()), taking traces in order as threads free up; the MPI runner has the
  /// measuring ranks do it and keep the builds for a later run(), so the coordinator only
  /// proposes. A candidate returned may then carry only a description, not the compiled
  /// program: pass it to run() of the same runner.
  virtual Prepared prepare(const Task& task, const std::vector<compiler::tune::Trace>& traces,
                           const PrepareSpec& spec);
  /// The same, compiling every trace (with features when asked), measuring none.
  Prepared prepare(const Task& task, const std::vector<compiler::tune::Trace>& traces,
                   bool with_features) {
    PrepareSpec spec;
    spec.features = with_features;
    return prepare(task, traces, spec);
  }
  virtual std::vector<MeasureResult> run(const Task& task,
                                         const std::vector<compiler::tune::Candidate>& cands,
                                         double stop_above) = 0;
  virtual int workers() const = 0;
  /// How the workers were used, for the summary (the MPI runner: each rank's busy time).
  virtual nlohmann::json stats() const { return nlohmann::json::object(); }
};

/// One task's outcome.
struct TaskResult {
  std::string name;
  compiler::tune::Workload workload;
  compiler::tune::Target target;
  std::string unit;
  int64_t trials = 0;     // measured
  int64_t invalid = 0;    // rejected by post-processing or failed to run
  int64_t proposed = 0;   // candidates compiled (seeds, samples, children; ranked or not)
  double best = 0;        // 0 when nothing valid was measured
  compiler::tune::Trace best_trace;
  nlohmann::json best_describe;
  nlohmann::json info;  // the task's info
  std::vector<double> best_after_trial;  // convergence: best so far after each trial
  std::vector<double> value_of_trial;    // each trial's measured value
  nlohmann::json to_json() const;
};

/// Progress: task index, its result so far, and a line to print.
using Progress = std::function<void(size_t task, const TaskResult&, const std::string& line)>;

/// Tunes the tasks with `opts.trials` measured trials in all; records every trial in `db`
/// (when given; the caller commits). Resumes: records already in `db` for a task count as
/// measured (their best seeds the search) but not toward this run's trials.
std::vector<TaskResult> tune(const std::vector<Task>& tasks, const SearchOptions& opts,
                             Runner& runner, Database* db, const Progress& progress = {});

/// The JSON summary of a tuning run, as `weft tune` prints it: the strategy, seed, trial budget,
/// the runner's workers and stats, the database path, and each task's result.
nlohmann::json tune_summary(const SearchOptions& opts, const Runner& runner, const std::string& db,
                            const std::vector<TaskResult>& results);

}  // namespace weft::rt::tune
