// The MPI runner (see mpi_runner.h). Slot 0 is rank 0's own measuring thread (WorkerThread),
// slots 1..N-1 the worker ranks; both answer the same requests (candidate_worker.h). Messages
// to and from the ranks are JSON text, tagged:
//   kPrepare -> kPrepared: compile, validate, extract features when asked, and measure at once
//                          when asked (random and evolutionary measure every valid candidate
//                          they compile) or keep the build for a kWork (the model's population);
//   kWork -> kResult:      measure, reusing the build the worker kept (else compiling again);
//   kClear: drop the kept builds (after each measured batch); kStopTag: leave the loop.
// Candidates are handed out in order as slots free up (PrefixDispatch: the same prefix is
// compiled as one at a time would); a worker rank gets a second one queued while plenty are
// left, so it never waits for the coordinator between two. Sends never block (Outbox). Nobody
// spins: the coordinator waits on its thread's replies with a timeout between MPI_Iprobe calls
// (growing while no rank speaks), and an idle worker rank polls with a growing sleep
// (OpenMPI's blocking calls busy-wait, which on a machine with as many ranks as cores would
// take the CPU from the ranks that measure).
#include "runtime/tune/mpi_runner.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "hardware/isa/errors.h"
#include "runtime/tune/candidate_worker.h"
#include "runtime/tune/mpi_messages.h"
#include "runtime/tune/prefix_dispatch.h"
#include "runtime/tune/worker_thread.h"

namespace weft::rt::tune {

namespace {

constexpr int kPrepare = 1, kPrepared = 2, kWork = 3, kResult = 4, kClear = 5;
// How long the coordinator sleeps between looks for a worker rank's message: short after a
// message (more may follow), doubling while none comes. A worker rank mostly has its next
// candidate queued already, so the longest wait costs it little; the polling itself costs
// about 20 us of CPU a look, which at a fixed 0.5 ms came to 4% of a core.
constexpr std::chrono::microseconds kPollShortest{50}, kPollLongest{2000};

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

// CPU time of the calling thread (the coordinator: it alone calls the runner).
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

class MpiRunner : public Runner {
 public:
  MpiRunner(MpiSession& s, const std::vector<Task>& tasks)
      : s_(s), tasks_(tasks), local_(tasks), in_flight_(s.size(), 0),
        busy_since_(s.size()), busy_s_(s.size(), 0.0), start_(Clock::now()),
        start_cpu_s_(thread_cpu_s()) {}
  // After a failure part-way through a batch, the replies still owed are taken (and dropped),
  // so that no worker rank is left waiting to hand one over.
  ~MpiRunner() override {
    try {
      for (int slot = 0; slot < s_.size(); ++slot)
        while (in_flight_[slot] > 0) wait_reply(&slot_dummy_);
      outbox_.flush();
    } catch (...) {
    }
  }
  int workers() const override { return s_.size(); }
  nlohmann::json stats() const override {
    const double wall = std::chrono::duration<double>(Clock::now() - start_).count();
    nlohmann::json busy = nlohmann::json::array();
    double sum = 0;
    for (double b : busy_s_) {
      busy.push_back(b);
      sum += b;
    }
    return {{"ranks", s_.size()}, {"search_wall_s", wall}, {"rank_busy_s", busy},
            {"busy_fraction", wall > 0 ? sum / (wall * s_.size()) : 0.0},
            {"coordinator_cpu_s", thread_cpu_s() - start_cpu_s_}};
  }

  Prepared prepare(const Task& task, const std::vector<compiler::tune::Trace>& traces,
                   const PrepareSpec& spec) override {
    const int index = index_of(task);
    Prepared out;
    out.cands.resize(traces.size());
    out.features.resize(traces.size());
    out.measured.resize(traces.size());
    PrefixDispatch d(traces.size(), spec.want);
    const bool infinite = std::isinf(spec.stop_above);
    auto hand_out = [&](int slot) {
      size_t i = 0;
      if (!d.next(&i)) return false;
      send(slot, kPrepare,
           {{"task", index}, {"i", i}, {"trace", traces[i].to_json()},
            {"features", spec.features}, {"measure", spec.measure},
            {"stop", infinite ? -1.0 : spec.stop_above}});
      return true;
    };
    for (;;) {
      fill(hand_out, [&] { return d.ready(); });
      if (d.finished()) break;
      int slot = 0;
      const nlohmann::json j = wait_reply(&slot);
      const size_t i = j.at("i").get<size_t>();
      compiler::tune::Candidate& c = out.cands[i];
      c.trace = traces[i];
      c.error = j.at("error").get<std::string>();
      if (c.error.empty()) {
        auto body = std::make_shared<RemoteBody>();
        body->summary = j.at("describe");
        c.body = std::move(body);
        out.features[i] = j.at("features").get<std::vector<float>>();
        if (j.at("result").is_null())
          owner_[traces[i].key()] = slot;
        else
          out.measured[i] = result_from_json(j.at("result"));
      }
      d.done(c.ok());
    }
    out.cands.resize(d.handed());
    out.features.resize(d.handed());
    out.measured.resize(d.handed());
    return out;
  }

  std::vector<MeasureResult> run(const Task& task,
                                 const std::vector<compiler::tune::Candidate>& cands,
                                 double stop_above) override {
    const int index = index_of(task);
    std::vector<MeasureResult> out(cands.size());
    // Each slot's own candidates first (it kept their builds), then any left.
    std::vector<std::vector<size_t>> queue(s_.size());
    std::vector<size_t> orphans;
    for (size_t i = cands.size(); i-- > 0;) {
      auto it = owner_.find(cands[i].trace.key());
      if (it != owner_.end()) queue[it->second].push_back(i);
      else orphans.push_back(i);
    }
    size_t left = cands.size();
    auto hand_out = [&](int slot) {
      size_t i;
      if (!queue[slot].empty()) {
        i = queue[slot].back();
        queue[slot].pop_back();
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
      --left;
      send(slot, kWork, {{"task", index}, {"i", i}, {"trace", cands[i].trace.to_json()},
                         {"stop", std::isinf(stop_above) ? -1.0 : stop_above}});
      return true;
    };
    for (size_t done = 0; done < cands.size(); ++done) {
      fill(hand_out, [&] { return left; });
      int slot = 0;
      const nlohmann::json j = wait_reply(&slot);
      out[j.at("i").get<size_t>()] = result_from_json(j);
    }
    local_.post(WorkerThread::Kind::kClear, nullptr);
    for (int w = 1; w < s_.size(); ++w) outbox_.send("", w, kClear);
    owner_.clear();
    return out;
  }

 private:
  int index_of(const Task& task) const {
    for (size_t i = 0; i < tasks_.size(); ++i)
      if (&tasks_[i] == &task) return static_cast<int>(i);
    throw InternalError("MpiRunner: a task the workers do not know");
  }

  // Gives every idle slot a candidate, then, while at least two per slot are left, a second
  // one to each worker rank, so it has the next in hand when it replies.
  template <typename HandOut, typename Left>
  void fill(HandOut hand_out, Left left) {
    for (int slot = 0; slot < s_.size(); ++slot)
      if (in_flight_[slot] == 0 && hand_out(slot)) {
        ++in_flight_[slot];
        busy_since_[slot] = Clock::now();
      }
    for (int slot = 1; slot < s_.size(); ++slot)
      if (in_flight_[slot] == 1 && left() >= 2 * static_cast<size_t>(s_.size()) &&
          hand_out(slot))
        ++in_flight_[slot];
  }

  void send(int slot, int tag, const nlohmann::json& j) {
    if (slot == 0)
      local_.post(tag == kPrepare ? WorkerThread::Kind::kPrepare : WorkerThread::Kind::kMeasure,
                  j);
    else
      outbox_.send(j.dump(), slot, tag);
  }

  // The next reply from any slot.
  nlohmann::json wait_reply(int* slot) {
    nlohmann::json j;
    for (;;) {
      outbox_.reap();
      if (local_.take(&j, std::chrono::microseconds(0))) {
        *slot = 0;
        break;
      }
      if (s_.size() > 1) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
          j = nlohmann::json::parse(recv_text(st));
          *slot = st.MPI_SOURCE;
          break;
        }
      }
      if (local_.take(&j, s_.size() > 1 ? poll_ : std::chrono::microseconds(-1))) {
        *slot = 0;
        break;
      }
      poll_ = std::min(poll_ * 2, kPollLongest);
    }
    if (*slot > 0) poll_ = kPollShortest;
    if (--in_flight_[*slot] == 0)
      busy_s_[*slot] += std::chrono::duration<double>(Clock::now() - busy_since_[*slot]).count();
    return j;
  }

  MpiSession& s_;
  const std::vector<Task>& tasks_;
  WorkerThread local_;
  using Clock = std::chrono::steady_clock;
  std::vector<int> in_flight_;        // per slot
  // Per slot, the time it had work in hand (handed out, reply not yet taken), for stats().
  std::vector<Clock::time_point> busy_since_;
  std::vector<double> busy_s_;
  Clock::time_point start_;
  double start_cpu_s_;  // the coordinating thread's CPU time when the search began
  std::chrono::microseconds poll_ = kPollShortest;
  std::map<std::string, int> owner_;  // trace key -> the slot that prepared and kept it
  Outbox outbox_;
  int slot_dummy_ = 0;
};

}  // namespace

MpiSession::MpiSession(const std::string&, const std::string&) {
  if (!launched_by_mpirun()) return;
  int provided = 0;
  // Only the main thread calls MPI (rank 0's measuring thread never does).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (!initialized_) return;
  stop_workers();  // when rank 0 failed before it ran a search: the workers still wait
  MPI_Finalize();
}

bool mpi_available() { return true; }

void mpi_worker_loop(MpiSession&, const std::vector<Task>& tasks) {
  CandidateWorker worker(tasks);
  Outbox outbox;  // replies go out without waiting for the coordinator to take them
  for (;;) {
    // The coordinator may stay quiet a while (a batch's serial part: sampling, ranking, the
    // model's retrain).
    const MPI_Status st = wait_for_coordinator(outbox);
    const std::string text = recv_text(st);
    switch (st.MPI_TAG) {
      case kStopTag:
        return;  // the coordinator took every reply before saying stop: the outbox empties
      case kClear:
        worker.clear();
        break;
      case kPrepare:
        outbox.send(worker.prepare(nlohmann::json::parse(text)).dump(), 0, kPrepared);
        break;
      case kWork:
        outbox.send(worker.measure(nlohmann::json::parse(text)).dump(), 0, kResult);
        break;
      default:
        throw InternalError("MPI worker: unknown message tag " + std::to_string(st.MPI_TAG));
    }
  }
}

std::unique_ptr<Runner> make_mpi_runner(MpiSession& s, const std::vector<Task>& tasks) {
  return std::make_unique<MpiRunner>(s, tasks);
}

void mpi_stop_workers(MpiSession& s) { s.stop_workers(); }

void MpiSession::stop_workers() {
  if (!initialized_ || rank_ != 0 || stopped_) return;
  stopped_ = true;
  for (int w = 1; w < size_; ++w) MPI_Send(nullptr, 0, MPI_CHAR, w, kStopTag, MPI_COMM_WORLD);
}

}  // namespace weft::rt::tune
