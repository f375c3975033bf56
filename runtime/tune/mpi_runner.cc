// The MPI runner (see mpi_runner.h). Messages are JSON text: work {task, trace, stop} with tag
// kWork, results {value, error, stopped_early, wall_s} with tag kResult, and an empty kStop.
#include "runtime/tune/mpi_runner.h"

#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::rt::tune {

namespace {

constexpr int kWork = 1, kResult = 2, kStop = 3;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

void send_text(const std::string& s, int to, int tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

std::string recv_text(int from, int* tag, int* source) {
  MPI_Status st;
  MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string s(static_cast<size_t>(n), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (tag) *tag = st.MPI_TAG;
  if (source) *source = st.MPI_SOURCE;
  return s;
}

class MpiRunner : public Runner {
 public:
  MpiRunner(MpiSession& s, const std::vector<Task>& tasks) : s_(s), tasks_(tasks) {}
  int workers() const override { return s_.size() - 1; }

  std::vector<MeasureResult> run(const Task& task,
                                 const std::vector<compiler::tune::Candidate>& cands,
                                 double stop_above) override {
    int index = -1;
    for (size_t i = 0; i < tasks_.size(); ++i)
      if (&tasks_[i] == &task) index = static_cast<int>(i);
    if (index < 0) throw InternalError("MpiRunner: a task the workers do not know");
    std::vector<MeasureResult> out(cands.size());
    std::vector<long> at_worker(s_.size(), -1);
    size_t next = 0, done = 0;
    auto send = [&](int w) {
      nlohmann::json j = {{"task", index}, {"i", next}, {"trace", cands[next].trace.to_json()},
                          {"stop", std::isinf(stop_above) ? -1.0 : stop_above}};
      send_text(j.dump(), w, kWork);
      at_worker[w] = static_cast<long>(next++);
    };
    for (int w = 1; w < s_.size() && next < cands.size(); ++w) send(w);
    while (done < cands.size()) {
      int tag = 0, from = 0;
      const nlohmann::json j = nlohmann::json::parse(recv_text(MPI_ANY_SOURCE, &tag, &from));
      MeasureResult& r = out[j.at("i").get<size_t>()];
      r.value = j.at("value").get<double>();
      r.error = j.at("error").get<std::string>();
      r.stopped_early = j.at("stopped_early").get<bool>();
      r.wall_s = j.at("wall_s").get<double>();
      ++done;
      at_worker[from] = -1;
      if (next < cands.size()) send(from);
    }
    return out;
  }

 private:
  MpiSession& s_;
  const std::vector<Task>& tasks_;
};

}  // namespace

MpiSession::MpiSession() {
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ == 1)
    throw UserError("tune: started by mpirun with one rank, which leaves no worker to measure; "
                    "use mpirun -np 2 or more, or run without mpirun (--workers N)");
}

MpiSession::~MpiSession() {
  if (initialized_) MPI_Finalize();
}

bool mpi_available() { return true; }

void mpi_worker_loop(MpiSession& s, const std::vector<Task>& tasks) {
  for (;;) {
    int tag = 0;
    const std::string text = recv_text(0, &tag, nullptr);
    if (tag == kStop) return;
    nlohmann::json out;
    try {
      const nlohmann::json j = nlohmann::json::parse(text);
      const Task& t = tasks.at(j.at("task").get<size_t>());
      const double stop = j.at("stop").get<double>();
      const auto c = t.space->apply(compiler::tune::Trace::from_json(j.at("trace")));
      MeasureResult r = c.ok() ? t.measurer->measure(
                                     c, stop < 0 ? std::numeric_limits<double>::infinity() : stop)
                               : MeasureResult{};
      if (!c.ok()) r.error = c.error;
      out = {{"i", j.at("i")}, {"value", r.value}, {"error", r.error},
             {"stopped_early", r.stopped_early}, {"wall_s", r.wall_s}};
    } catch (const std::exception& e) {
      out = {{"i", nlohmann::json::parse(text).value("i", 0)}, {"value", 0.0},
             {"error", std::string("worker: ") + e.what()}, {"stopped_early", false},
             {"wall_s", 0.0}};
    }
    send_text(out.dump(), 0, kResult);
  }
}

std::unique_ptr<Runner> make_mpi_runner(MpiSession& s, const std::vector<Task>& tasks) {
  return std::make_unique<MpiRunner>(s, tasks);
}

void mpi_stop_workers(MpiSession& s) {
  for (int w = 1; w < s.size(); ++w) send_text("", w, kStop);
}

}  // namespace weft::rt::tune
