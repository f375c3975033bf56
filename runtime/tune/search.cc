// The search drivers and the task scheduler (see search.h).
//
// Each round of a task proposes up to `batch` new candidates, measures them through the
// Runner and records them. Proposals depend only on the task's random stream (forked from the
// seed by task index) and on the measured values, never on timing or on which worker measured
// what, so any number of workers gives the same trials and the same best.
//   random:        fresh samples of the space.
//   evolutionary:  the space's seeds first (the analytic chooser's picks, always measured), then children of
//                  the measured elites (one or two mutations of a parent drawn from the best
//                  eight) mixed with a quarter of fresh samples; the first valid ones win.
//   model:         as evolutionary, but a larger population is scored by the XGBoost ranker
//                  (trained on every task's measurements so far, one ranking group per task)
//                  and the best-scored are measured; one slot per batch stays exploratory.
#include "runtime/tune/search.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/prefix_dispatch.h"
#include "runtime/tune/thread_runner.h"

namespace weft::rt::tune {

using compiler::tune::Candidate;
using compiler::tune::CostModel;
using compiler::tune::Rng;
using compiler::tune::Trace;
using nlohmann::json;

Strategy parse_strategy(const std::string& s) {
  if (s == "random") return Strategy::kRandom;
  if (s == "evolutionary") return Strategy::kEvolutionary;
  if (s == "model") return Strategy::kModel;
  throw UserError("--strategy: '" + s + "' is not one of random, evolutionary, model");
}

std::string strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kRandom: return "random";
    case Strategy::kEvolutionary: return "evolutionary";
    case Strategy::kModel: return "model";
  }
  return "?";
}

json TaskResult::to_json() const {
  return {{"task", name}, {"workload", workload.to_json()}, {"target", target.to_json()},
          {"unit", unit}, {"trials", trials}, {"invalid", invalid},
          {"proposed", proposed},
          {"best", best}, {"best_trace", best_trace.to_json()}, {"best_schedule", best_describe},
          {"best_after_trial", best_after_trial}, {"value_of_trial", value_of_trial},
          {"info", info}};
}

Prepared Runner::prepare(const Task& task, const std::vector<Trace>& traces,
                         const PrepareSpec& spec) {
  Prepared out;
  out.cands.resize(traces.size());
  out.features.resize(traces.size());
  out.measured.resize(traces.size());
  auto work = [&](size_t i) {
    Candidate& c = out.cands[i];
    c = task.space->apply(traces[i]);
    if (!c.ok()) return;
    if (spec.features) out.features[i] = task.features->extract(c);
    if (spec.measure) out.measured[i] = task.measurer->measure(c, spec.stop_above);
  };
  PrefixDispatch d(traces.size(), spec.want);
  const int workers = std::max(1, this->workers());
  if (workers == 1) {
    for (size_t j; d.next(&j);) {
      work(j);
      d.done(out.cands[j].ok());
    }
  } else {
    // Each thread takes the next trace the dispatch allows, or waits for one in flight to
    // come back (a failed one may let another be handed out).
    std::mutex m;
    std::condition_variable changed;
    std::exception_ptr failure;
    auto loop = [&] {
      std::unique_lock<std::mutex> lock(m);
      for (size_t j;;) {
        changed.wait(lock, [&] { return failure || d.finished() || d.ready() > 0; });
        if (failure || !d.next(&j)) break;
        lock.unlock();
        try {
          work(j);
        } catch (...) {
          std::lock_guard<std::mutex> g(m);
          if (!failure) failure = std::current_exception();
        }
        lock.lock();
        d.done(out.cands[j].ok());
        changed.notify_all();
      }
    };
    std::vector<std::thread> pool;
    for (int w = 0; w < workers && static_cast<size_t>(w) < traces.size(); ++w)
      pool.emplace_back(loop);
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
  }
  out.cands.resize(d.handed());
  out.features.resize(d.handed());
  out.measured.resize(d.handed());
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Elite {
  double value;
  Trace trace;
};

struct TaskState {
  const Task* task = nullptr;
  int index = 0;
  Rng rng{0};
  std::set<std::string> seen;  // measured or invalid or proposed: never proposed again
  std::vector<Elite> elites;   // measured, sorted by value
  std::vector<Trace> seeds;
  size_t next_seed = 0;
  int64_t budget = 0, invalid_here = 0;
  bool exhausted = false;
  TaskResult result;
};

void add_elite(TaskState& st, double v, const Trace& t) {
  Elite e{v, t};
  auto it = std::upper_bound(st.elites.begin(), st.elites.end(), e,
                             [](const Elite& a, const Elite& b) { return a.value < b.value; });
  st.elites.insert(it, std::move(e));
}

Trace child_of(TaskState& st) {
  const auto& space = *st.task->space;
  const size_t top = std::min<size_t>(8, st.elites.size());
  Trace t = st.elites[st.rng.uniform(0, top - 1)].trace;
  int n = st.rng.real() < 0.3 ? 2 : 1;
  for (int i = 0; i < n; ++i) t = space.mutate(t, st.rng);
  return t;
}

// Up to n valid candidates not measured before (with their features when the model is
// used); invalid ones are recorded. Candidates that are measured whatever happens (the seeds,
// and every valid one when nothing ranks them) are measured while compiled, with the early-stop
// threshold `stop`, and come back with their results.
Prepared propose(TaskState& st, Strategy strategy, int n, const CostModel* model,
                 const SearchOptions& opts, double stop, Runner& runner, Database* db) {
  const auto& space = *st.task->space;
  const bool want_x = model != nullptr;
  Prepared chosen;
  auto choose = [&](Prepared& p, size_t i) {
    chosen.cands.push_back(std::move(p.cands[i]));
    chosen.features.push_back(std::move(p.features[i]));
    chosen.measured.push_back(std::move(p.measured[i]));
  };
  // The space's seeds (the analytic chooser's picks) are measured as they come, never ranked
  // away by a model trained on other tasks.
  if (strategy != Strategy::kRandom) {
    while (st.next_seed < st.seeds.size() && static_cast<int>(chosen.cands.size()) < n) {
      std::vector<Trace> some;
      while (st.next_seed < st.seeds.size() &&
             static_cast<int>(chosen.cands.size() + some.size()) < n) {
        const Trace& t = st.seeds[st.next_seed++];
        if (st.seen.count(t.key())) continue;
        st.seen.insert(t.key());
        some.push_back(t);
      }
      PrepareSpec spec;
      spec.features = want_x;
      spec.measure = true;
      spec.stop_above = stop;
      Prepared p = runner.prepare(*st.task, some, spec);
      st.result.proposed += static_cast<int64_t>(p.cands.size());
      for (size_t i = 0; i < p.cands.size(); ++i)
        if (p.cands[i].ok()) choose(p, i);
    }
  }
  for (int attempt = 0; attempt < 64 && static_cast<int>(chosen.cands.size()) < n; ++attempt) {
    const bool ranked = strategy == Strategy::kModel && model && model->trained();
    const int want = n - static_cast<int>(chosen.cands.size());
    const int pool_size = ranked ? std::max(opts.population, 2 * want) : 2 * want;
    std::vector<Trace> pool;
    std::set<std::string> keys;
    auto offer = [&](Trace t) {
      std::string k = t.key();
      if (st.seen.count(k) || keys.count(k)) return;
      keys.insert(k);
      pool.push_back(std::move(t));
    };
    for (int j = 0; j < 4 * pool_size && static_cast<int>(pool.size()) < pool_size; ++j) {
      if (strategy == Strategy::kRandom || st.elites.empty() || st.rng.real() < 0.25)
        offer(space.sample(st.rng));
      else
        offer(child_of(st));
    }
    if (pool.empty()) continue;
    // Ranked, the whole population is compiled (the model needs features) and the picks are
    // measured later. Unranked, only the shortest prefix of the pool holding the `want` valid
    // candidates still wanted is compiled (the rest is spare for invalid ones), and each valid
    // one is measured as it is compiled.
    PrepareSpec spec;
    spec.features = want_x;
    if (!ranked) {
      spec.measure = true;
      spec.stop_above = stop;
      spec.want = static_cast<size_t>(want);
    }
    Prepared applied = runner.prepare(*st.task, pool, spec);
    st.result.proposed += static_cast<int64_t>(applied.cands.size());
    Prepared valid;
    for (size_t ci = 0; ci < applied.cands.size(); ++ci) {
      Candidate& c = applied.cands[ci];
      st.seen.insert(c.trace.key());
      if (c.ok()) {
        valid.cands.push_back(std::move(c));
        valid.features.push_back(std::move(applied.features[ci]));
        valid.measured.push_back(std::move(applied.measured[ci]));
        continue;
      }
      ++st.invalid_here;
      ++st.result.invalid;
      if (db) {
        TuningRecord r;
        r.workload = st.task->workload;
        r.target = st.task->target;
        r.trace = c.trace;
        r.unit = st.task->measurer->unit();
        r.error = c.error;
        r.strategy = strategy_name(strategy);
        r.seed = opts.seed;
        db->add(std::move(r));
      }
    }
    if (st.invalid_here > opts.max_invalid) break;
    if (ranked && static_cast<int>(valid.cands.size()) > want) {
      const std::vector<double> score = model->predict(valid.features);
      std::vector<size_t> order(valid.cands.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return score[a] > score[b]; });
      // The best-scored, and (batches of 4 or more) one exploratory pick from the rest.
      const int exploit = want >= 4 ? want - 1 : want;
      std::vector<size_t> pick(order.begin(), order.begin() + exploit);
      if (exploit < want) pick.push_back(order[st.rng.uniform(exploit, order.size() - 1)]);
      // Candidates not picked may be proposed again later.
      std::set<std::string> picked;
      for (size_t i : pick) picked.insert(valid.cands[i].trace.key());
      for (const Candidate& c : valid.cands)
        if (!picked.count(c.trace.key())) st.seen.erase(c.trace.key());
      Prepared kept;
      for (size_t i : pick) {
        kept.cands.push_back(valid.cands[i]);
        kept.features.push_back(valid.features[i]);
        kept.measured.push_back(valid.measured[i]);
      }
      valid = std::move(kept);
    }
    for (size_t ci = 0; ci < valid.cands.size(); ++ci) {
      if (static_cast<int>(chosen.cands.size()) >= n) {
        st.seen.erase(valid.cands[ci].trace.key());
        continue;
      }
      chosen.cands.push_back(std::move(valid.cands[ci]));
      chosen.features.push_back(std::move(valid.features[ci]));
      chosen.measured.push_back(std::move(valid.measured[ci]));
    }
  }
  return chosen;
}

// Trials per task by weight (largest remainders), each task at least one batch when the
// budget allows it.
std::vector<int64_t> share_trials(const std::vector<Task>& tasks, int64_t trials, int batch) {
  const size_t n = tasks.size();
  std::vector<int64_t> out(n, 0);
  const int64_t floor_each = std::min<int64_t>(batch, trials / static_cast<int64_t>(n));
  int64_t rest = trials - floor_each * static_cast<int64_t>(n);
  double total = 0;
  for (const Task& t : tasks) total += std::max(0.0, t.weight);
  std::vector<std::pair<double, size_t>> rem;
  int64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    const double exact = total > 0 ? rest * std::max(0.0, tasks[i].weight) / total
                                   : double(rest) / n;
    out[i] = floor_each + static_cast<int64_t>(std::floor(exact));
    given += static_cast<int64_t>(std::floor(exact));
    rem.push_back({exact - std::floor(exact), i});
  }
  std::stable_sort(rem.begin(), rem.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; given < rest && i < rem.size(); ++i, ++given) ++out[rem[i].second];
  return out;
}

}  // namespace

std::vector<TaskResult> tune(const std::vector<Task>& tasks, const SearchOptions& opts,
                             Runner& runner, Database* db, const Progress& progress) {
  if (tasks.empty()) throw UserError("tune: no tasks");
  if (opts.trials < 1)
    throw UserError("tune: --trials must be at least 1 (got " + std::to_string(opts.trials) + ")");
  if (opts.batch < 1) throw UserError("tune: the batch must be at least 1");
  std::unique_ptr<CostModel> model;
  if (opts.strategy == Strategy::kModel)
    model = compiler::tune::make_xgboost_model(1, opts.seed);

  const std::vector<int64_t> budget = share_trials(tasks, opts.trials, opts.batch);
  Rng root(opts.seed);
  std::vector<TaskState> states(tasks.size());
  std::vector<std::vector<float>> mx;  // the model's data: every task's measurements
  std::vector<double> my;
  std::vector<int> mg;
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskState& st = states[i];
    st.task = &tasks[i];
    st.index = static_cast<int>(i);
    st.rng = root.fork(i + 1);
    st.budget = budget[i];
    st.seeds = tasks[i].space->seeds();
    st.result.name = tasks[i].name;
    st.result.workload = tasks[i].workload;
    st.result.target = tasks[i].target;
    st.result.unit = tasks[i].measurer->unit();
    st.result.info = tasks[i].info;
    st.result.best = 0;
    if (!db) continue;
    // Resume: earlier records count as measured; their best seeds the search.
    for (const TuningRecord& r : db->records(tasks[i].workload.key(), tasks[i].target.key())) {
      if (r.unit != st.result.unit)
        throw UserError("tuning database " + db->path() + ": a record of " + tasks[i].name +
                        " is in " + r.unit + ", this measurer gives " + st.result.unit);
      if (std::string bad = tasks[i].space->check_trace(r.trace); !bad.empty())
        throw UserError("tuning database " + db->path() + ": a record of " + tasks[i].name +
                        " (" + tasks[i].workload.key() + ") does not match this space: " + bad);
      st.seen.insert(r.trace.key());
      if (!r.ok() || r.stopped_early) continue;
      Candidate c = tasks[i].space->apply(r.trace);
      if (!c.ok()) continue;  // e.g. a record from an older space: not an elite
      add_elite(st, r.value, r.trace);
      if (model) {
        mx.push_back(tasks[i].features->extract(c));
        my.push_back(r.value);
        mg.push_back(static_cast<int>(i));
      }
      if (st.result.best == 0 || r.value < st.result.best) {
        st.result.best = r.value;
        st.result.best_trace = r.trace;
        st.result.best_describe = c.body->describe();
      }
    }
  }
  if (model && mx.size() >= 2) model->train(mx, my, mg);

  for (bool any = true; any;) {
    any = false;
    for (TaskState& st : states) {
      if (st.exhausted || st.result.trials >= st.budget) continue;
      any = true;
      const int n = static_cast<int>(std::min<int64_t>(opts.batch, st.budget - st.result.trials));
      const double stop = st.result.best > 0 ? st.result.best * opts.early_stop : kInf;
      Prepared proposed = propose(st, opts.strategy, n, model.get(), opts, stop, runner, db);
      const std::vector<Candidate>& cands = proposed.cands;
      if (cands.empty()) {
        st.exhausted = true;
        if (st.result.best == 0 && st.invalid_here > 0 && st.elites.empty())
          throw UserError("tune " + st.task->name + " (" + st.task->workload.key() +
                          "): no valid schedule found in " + std::to_string(st.invalid_here) +
                          " tries; the shape may not fit the target (last error: see the "
                          "database or --verbose)");
        continue;
      }
      // Those not measured while proposed (the model's picks) are measured now.
      std::vector<MeasureResult> res(cands.size());
      std::vector<Candidate> rest;
      std::vector<size_t> rest_at;
      for (size_t k = 0; k < cands.size(); ++k) {
        if (proposed.measured[k]) {
          res[k] = std::move(*proposed.measured[k]);
        } else {
          rest.push_back(cands[k]);
          rest_at.push_back(k);
        }
      }
      if (!rest.empty()) {
        std::vector<MeasureResult> got = runner.run(*st.task, rest, stop);
        for (size_t k = 0; k < rest.size(); ++k) res[rest_at[k]] = std::move(got[k]);
      }
      for (size_t k = 0; k < cands.size(); ++k) {
        const MeasureResult& m = res[k];
        ++st.result.trials;
        if (db) {
          TuningRecord r;
          r.workload = st.task->workload;
          r.target = st.task->target;
          r.trace = cands[k].trace;
          r.value = m.value;
          r.unit = st.result.unit;
          r.error = m.error;
          r.trial = st.result.trials;
          r.strategy = strategy_name(opts.strategy);
          r.seed = opts.seed;
          r.stopped_early = m.stopped_early;
          db->add(std::move(r));
        }
        if (m.ok()) {
          if (!m.stopped_early) add_elite(st, m.value, cands[k].trace);
          if (model) {
            mx.push_back(proposed.features[k]);
            my.push_back(m.value);
            mg.push_back(st.index);
          }
          if (!m.stopped_early && (st.result.best == 0 || m.value < st.result.best)) {
            st.result.best = m.value;
            st.result.best_trace = cands[k].trace;
            st.result.best_describe = cands[k].body->describe();
          }
        } else {
          ++st.result.invalid;
        }
        st.result.value_of_trial.push_back(m.ok() ? m.value : 0);
        st.result.best_after_trial.push_back(st.result.best);
      }
      if (model && mx.size() >= 2) model->train(mx, my, mg);
      if (progress) {
        std::ostringstream line;
        line << "[" << st.task->name << "] " << st.result.trials << "/" << st.budget
             << " trials, best ";
        if (st.result.unit == "cycles")
          line << static_cast<int64_t>(st.result.best);
        else
          line << st.result.best;
        line << " " << st.result.unit << " (" << st.result.invalid << " invalid of "
             << st.result.proposed << " proposed)";
        progress(st.index, st.result, line.str());
      }
    }
  }
  std::vector<TaskResult> out;
  for (TaskState& st : states) out.push_back(std::move(st.result));
  return out;
}

nlohmann::json tune_summary(const SearchOptions& opts, const Runner& runner, const std::string& db,
                            const std::vector<TaskResult>& results) {
  nlohmann::json j = {{"strategy", strategy_name(opts.strategy)}, {"seed", opts.seed},
                      {"trials", opts.trials}, {"workers", runner.workers()}, {"db", db},
                      {"runner", runner.stats()}, {"tasks", nlohmann::json::array()}};
  for (const auto& r : results) j["tasks"].push_back(r.to_json());
  return j;
}

}  // namespace weft::rt::tune
