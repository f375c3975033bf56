// The MPI runner (see mpi_runner.h). Messages are JSON text:
//   kPrepare {task, i, trace, features}  -> kPrepared {i, error, features, describe}: the worker
//                                           applies (compiles, validates) and keeps the build;
//   kWork {task, i, trace, stop}         -> kResult {i, value, error, stopped_early, wall_s}: it
//                                           measures, reusing the build it kept (else applying);
//   kClear: drop the kept builds (after each measured batch); kStop: leave the loop.
// The coordinator only proposes traces, ranks features and records: compiling, which cost as
// much as measuring, runs on the workers. A candidate is measured by the worker that prepared
// it when that worker is free, else by any free worker (which compiles it again).
#include "runtime/tune/mpi_runner.h"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::rt::tune {

namespace {

constexpr int kWork = 1, kResult = 2, kStop = 3, kPrepare = 4, kPrepared = 5, kClear = 6;

// What a coordinator knows of a candidate a worker prepared: its description.
struct RemoteBody : compiler::tune::CandidateBody {
  nlohmann::json summary;
  nlohmann::json describe() const override { return summary; }
};

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

void send_text(const std::string& s, int to, int tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

std::string recv_text(int from, int* tag, int* source) {
  // OpenMPI's blocking probe spins; on a machine with as many ranks as cores the spinning
  // ranks would take the CPU from the one doing work, so poll and sleep instead.
  MPI_Status st;
  for (int flag = 0;;) {
    MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
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

  int index_of(const Task& task) const {
    for (size_t i = 0; i < tasks_.size(); ++i)
      if (&tasks_[i] == &task) return static_cast<int>(i);
    throw InternalError("MpiRunner: a task the workers do not know");
  }

  Prepared prepare(const Task& task, const std::vector<compiler::tune::Trace>& traces,
                   bool with_features) override {
    const int index = index_of(task);
    Prepared out;
    out.cands.resize(traces.size());
    out.features.resize(traces.size());
    size_t next = 0, done = 0;
    auto send = [&](int w) {
      nlohmann::json j = {{"task", index}, {"i", next}, {"trace", traces[next].to_json()},
                          {"features", with_features}};
      send_text(j.dump(), w, kPrepare);
      owner_[traces[next].key()] = w;
      ++next;
    };
    for (int w = 1; w < s_.size() && next < traces.size(); ++w) send(w);
    while (done < traces.size()) {
      int tag = 0, from = 0;
      const nlohmann::json j = nlohmann::json::parse(recv_text(MPI_ANY_SOURCE, &tag, &from));
      const size_t i = j.at("i").get<size_t>();
      compiler::tune::Candidate& c = out.cands[i];
      c.trace = traces[i];
      c.error = j.at("error").get<std::string>();
      if (c.error.empty()) {
        auto body = std::make_shared<RemoteBody>();
        body->summary = j.at("describe");
        c.body = std::move(body);
        out.features[i] = j.at("features").get<std::vector<float>>();
      } else {
        owner_.erase(traces[i].key());
      }
      ++done;
      if (next < traces.size()) send(from);
    }
    return out;
  }

  std::vector<MeasureResult> run(const Task& task,
                                 const std::vector<compiler::tune::Candidate>& cands,
                                 double stop_above) override {
    const int index = index_of(task);
    std::vector<MeasureResult> out(cands.size());
    // Each worker's own candidates first (it kept their builds), then any left.
    std::vector<std::vector<size_t>> queue(s_.size());
    std::vector<size_t> orphans;
    for (size_t i = cands.size(); i-- > 0;) {
      auto it = owner_.find(cands[i].trace.key());
      if (it != owner_.end()) queue[it->second].push_back(i);
      else orphans.push_back(i);
    }
    size_t done = 0;
    auto send = [&](int w) -> bool {
      size_t i;
      if (!queue[w].empty()) {
        i = queue[w].back();
        queue[w].pop_back();
      } else if (!orphans.empty()) {
        i = orphans.back();
        orphans.pop_back();
      } else {
        size_t longest = 0;
        for (size_t v = 1; v < queue.size(); ++v)
          if (queue[v].size() > queue[longest].size()) longest = v;
        if (queue[longest].empty()) return false;
        i = queue[longest].front();  // steal the one its owner would measure last
        queue[longest].erase(queue[longest].begin());
      }
      nlohmann::json j = {{"task", index}, {"i", i}, {"trace", cands[i].trace.to_json()},
                          {"stop", std::isinf(stop_above) ? -1.0 : stop_above}};
      send_text(j.dump(), w, kWork);
      return true;
    };
    for (int w = 1; w < s_.size(); ++w) send(w);
    while (done < cands.size()) {
      int tag = 0, from = 0;
      const nlohmann::json j = nlohmann::json::parse(recv_text(MPI_ANY_SOURCE, &tag, &from));
      MeasureResult& r = out[j.at("i").get<size_t>()];
      r.value = j.at("value").get<double>();
      r.error = j.at("error").get<std::string>();
      r.stopped_early = j.at("stopped_early").get<bool>();
      r.wall_s = j.at("wall_s").get<double>();
      ++done;
      send(from);
    }
    for (int w = 1; w < s_.size(); ++w) send_text("", w, kClear);
    owner_.clear();
    return out;
  }

 private:
  MpiSession& s_;
  const std::vector<Task>& tasks_;
  std::map<std::string, int> owner_;  // trace key -> the worker that prepared it
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
  std::map<std::pair<size_t, std::string>, compiler::tune::Candidate> kept;
  for (;;) {
    int tag = 0;
    const std::string text = recv_text(0, &tag, nullptr);
    if (tag == kStop) return;
    if (tag == kClear) {
      kept.clear();
      continue;
    }
    nlohmann::json out;
    if (tag == kPrepare) {
      try {
        const nlohmann::json j = nlohmann::json::parse(text);
        const size_t ti = j.at("task").get<size_t>();
        const Task& t = tasks.at(ti);
        auto c = t.space->apply(compiler::tune::Trace::from_json(j.at("trace")));
        out = {{"i", j.at("i")}, {"error", c.ok() ? "" : c.error},
               {"features", std::vector<float>{}}, {"describe", nullptr}};
        if (c.ok()) {
          if (j.at("features").get<bool>()) out["features"] = t.features->extract(c);
          out["describe"] = c.body->describe();
          kept[{ti, c.trace.key()}] = std::move(c);
        }
      } catch (const std::exception& e) {
        out = {{"i", nlohmann::json::parse(text).value("i", 0)},
               {"error", std::string("worker: ") + e.what()},
               {"features", std::vector<float>{}}, {"describe", nullptr}};
      }
      send_text(out.dump(), 0, kPrepared);
      continue;
    }
    try {
      const nlohmann::json j = nlohmann::json::parse(text);
      const size_t ti = j.at("task").get<size_t>();
      const Task& t = tasks.at(ti);
      const double stop = j.at("stop").get<double>();
      const auto trace = compiler::tune::Trace::from_json(j.at("trace"));
      auto k = kept.find({ti, trace.key()});
      const auto c = k != kept.end() ? k->second : t.space->apply(trace);
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
