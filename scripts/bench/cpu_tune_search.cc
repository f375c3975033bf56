// Finds CPU schedules for the benchmark's cases (SGEMM and int8 GEMM 1024^3, ResNet-18 C1-C12
// fp32 conv2d) with the CPU tuning tasks of runtime/tune (the llvm.dense / llvm.conv2d
// spaces, the host measurer), and writes every trial to a tuning-records database. The search
// is a small (1+lambda) evolution: the space's seeds, then rounds that measure mutations of
// the best so far and fresh random samples; invalid candidates are recorded with their
// error and do not count as trials. scripts/bench/cpu_tune_bench.sh runs it, then bench_cpu
// --records with the database to compare the tuned schedules with oneDNN side by side.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_schedules.h"
#include "runtime/tune/cpu_tasks.h"
#include "runtime/tune/database.h"

namespace {

using namespace weft;
using namespace weft::rt::tune;

std::vector<std::pair<std::string, compiler::tune::Workload>> cases(const std::string& what,
                                                                    const std::string& csv) {
  std::vector<std::pair<std::string, compiler::tune::Workload>> out;
  if (what == "all" || what == "sgemm")
    out.push_back({"SGEMM 1024^3", cpu_dense_workload(1024, 1024, 1024, "float32")});
  if (what == "all" || what == "igemm")
    out.push_back({"int8 GEMM 1024^3", cpu_dense_workload(1024, 1024, 1024, "int8")});
  if (what == "all" || what == "conv") {
    std::ifstream in(csv);
    if (!in) throw UserError("cannot read the layer table '" + csv + "'");
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::stringstream ss(line);
      std::string f[8];
      for (auto& x : f) std::getline(ss, x, ',');
      compiler::ops::Conv2dNchw s{1,           std::stoll(f[3]), std::stoll(f[1]), std::stoll(f[2]),
                             std::stoll(f[4]), std::stoll(f[5]), std::stoll(f[5]), std::stoll(f[6]),
                             std::stoll(f[7])};
      out.push_back({f[0], cpu_conv2d_workload(s, "float32")});
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU schedule search for the benchmark's cases (records to --db)"};
  int trials = 32;
  uint64_t seed = 1;
  std::string what = "all", csv, db_path;
  app.add_option("--trials", trials, "measured trials per case")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "random seed");
  app.add_option("--what", what, "sgemm | igemm | conv | all");
  app.add_option("--layers", csv, "ResNet-18 layer table (scripts/bench/cpu_resnet18_conv.csv)");
  app.add_option("--db", db_path, "tuning records (JSON lines; resumed and rewritten)")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    Database db(db_path);
    for (const auto& [name, w] : cases(what, csv)) {
      Task task = make_cpu_task(w, name);
      compiler::tune::Rng rng(seed);
      std::set<std::string> seen;
      double best = 0;
      compiler::tune::Trace best_trace;
      int measured = 0, invalid = 0;
      std::vector<compiler::tune::Trace> queue = task.space->seeds();
      for (const TuningRecord& r : db.records(task.workload.key(), task.target.key())) {
        seen.insert(r.trace.key());
        if (r.ok() && (best == 0 || r.value < best)) {
          best = r.value;
          best_trace = r.trace;
        }
      }
      while (measured < trials && invalid < 4096) {
        compiler::tune::Trace t;
        if (!queue.empty()) {
          t = queue.front();
          queue.erase(queue.begin());
        } else if (best > 0 && rng.uniform(0, 2) > 0) {
          t = task.space->mutate(best_trace, rng);
        } else {
          t = task.space->sample(rng);
        }
        if (!seen.insert(t.key()).second) continue;
        compiler::tune::Candidate c = task.space->apply(t);
        TuningRecord rec{task.workload, task.target, t, 0, task.measurer->unit(), "", measured,
                         "evolutionary", seed};
        if (!c.ok()) {
          rec.error = c.error;
          ++invalid;
          db.add(rec);
          continue;
        }
        MeasureResult m = task.measurer->measure(c, best > 0 ? 2 * best : 1e30);
        rec.value = m.value;
        rec.error = m.error;
        db.add(rec);
        if (!m.ok()) {
          ++invalid;
          std::fprintf(stderr, "%s: %s: %s\n", name.c_str(), t.key().c_str(), m.error.c_str());
          continue;
        }
        ++measured;
        if (!m.stopped_early && (best == 0 || m.value < best)) {
          best = m.value;
          best_trace = t;
        }
        std::fprintf(stderr, "%s trial %d: %.3f ms (best %.3f ms) %s\n", name.c_str(), measured,
                     m.value * 1e3, best * 1e3, t.key().c_str());
      }
      std::printf("%s: best %.3f ms after %d trials (%d invalid): %s\n", name.c_str(), best * 1e3,
                  measured, invalid, best_trace.key().c_str());
      std::fflush(stdout);
      db.commit();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_tune_search: %s\n", e.what());
    return 1;
  }
  return 0;
}
