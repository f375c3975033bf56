// A sweep over MPI ranks (see dse_mpi.h). Messages are JSON text (runtime/tune/mpi_messages.h):
//   kAsk (worker -> 0, empty):          ready for a group;
//   kGroup (0 -> worker):               {"group": g, "points": [point indices]};
//   kRecords (worker -> 0):             {"group": g, "records": [...]}, which also asks again;
//   kStopTag (0 -> worker, empty):      every group is done (MpiSession::stop_workers).
// A worker asking when no group is left gets no answer until the stop. Rank 0's main thread
// alone calls MPI; its measuring threads only take groups from the shared counter.
#include "runtime/dse/dse_mpi.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "hardware/isa/errors.h"
#include "runtime/tune/mpi_messages.h"

namespace weft::rt::dse {

namespace {

constexpr int kAsk = 1, kGroup = 2, kRecords = 3;
static_assert(kRecords < tune::kStopTag, "the stop tag is the sessions' own");

// How long rank 0 sleeps between looks for a worker rank's message: short after one, doubling
// while none comes (a point takes tenths of a second to minutes, so the longest wait is small).
constexpr std::chrono::microseconds kPollShortest{100}, kPollLongest{20000};

class Coordinator {
 public:
  Coordinator(tune::MpiSession& s, const std::vector<PointSpec>& points, const DseOptions& o,
              const std::vector<std::vector<size_t>>& groups,
              const std::function<void(size_t, std::vector<nlohmann::json>)>& done)
      : s_(s), points_(points), o_(o), table_(cost::energy_table_for(o.energy)), groups_(groups),
        done_(done) {}

  void run() {
    std::vector<std::thread> threads;
    for (int j = 0; j < std::max(1, o_.jobs); ++j) threads.emplace_back([this] { measure_here(); });
    try {
      serve_workers();
    } catch (...) {
      failed_ = true;
      remember(std::current_exception());
    }
    for (auto& t : threads) t.join();
    outbox_.flush();
    s_.stop_workers();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // The next group to measure, or false when none is left (or a failure stops the run).
  bool take(size_t* g) {
    if (failed_) return false;
    *g = next_++;
    return *g < groups_.size();
  }

  void finish(size_t g, std::vector<nlohmann::json> records) {
    done_(g, std::move(records));
    ++finished_;
  }

  void remember(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = e;
  }

  // One of rank 0's measuring threads.
  void measure_here() {
    try {
      for (size_t g; take(&g);) finish(g, measure_group(points_, groups_[g], o_, table_));
    } catch (...) {
      failed_ = true;
      remember(std::current_exception());
    }
  }

  // Rank 0's main thread: answers the worker ranks until every group is done.
  void serve_workers() {
    std::chrono::microseconds poll = kPollShortest;
    while (finished_ < groups_.size() && !failed_) {
      outbox_.reap();
      int flag = 0;
      MPI_Status st;
      if (s_.size() > 1) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        std::this_thread::sleep_for(poll);
        poll = std::min(poll * 2, kPollLongest);
        continue;
      }
      poll = kPollShortest;
      const std::string text = tune::recv_text(st);
      if (st.MPI_TAG == kRecords) {
        const nlohmann::json j = nlohmann::json::parse(text);
        finish(j.at("group").get<size_t>(), j.at("records").get<std::vector<nlohmann::json>>());
      } else if (st.MPI_TAG != kAsk) {
        throw InternalError("dse over MPI: unknown message tag " + std::to_string(st.MPI_TAG) +
                            " from rank " + std::to_string(st.MPI_SOURCE));
      }
      size_t g;
      if (take(&g))
        outbox_.send(nlohmann::json{{"group", g}, {"points", groups_[g]}}.dump(), st.MPI_SOURCE,
                     kGroup);
    }
  }

  tune::MpiSession& s_;
  const std::vector<PointSpec>& points_;
  const DseOptions& o_;
  const cost::EnergyTable table_;
  const std::vector<std::vector<size_t>>& groups_;
  const std::function<void(size_t, std::vector<nlohmann::json>)>& done_;
  std::atomic<size_t> next_{0}, finished_{0};
  std::atomic<bool> failed_{false};
  std::mutex mu_;
  std::exception_ptr error_;
  tune::Outbox outbox_;
};

}  // namespace

GroupRunner mpi_group_runner(tune::MpiSession& s, const std::vector<PointSpec>& points,
                             const DseOptions& o) {
  return [&s, &points, &o](const std::vector<std::vector<size_t>>& groups,
                           const std::function<void(size_t, std::vector<nlohmann::json>)>& done) {
    Coordinator(s, points, o, groups, done).run();
  };
}

void dse_mpi_worker(tune::MpiSession&, const std::vector<PointSpec>& points,
                    const DseOptions& o) {
  const cost::EnergyTable table = cost::energy_table_for(o.energy);
  tune::Outbox outbox;
  outbox.send("", 0, kAsk);
  for (;;) {
    const MPI_Status st = tune::wait_for_coordinator(outbox);
    const std::string text = tune::recv_text(st);
    if (st.MPI_TAG == tune::kStopTag) return;
    if (st.MPI_TAG != kGroup)
      throw InternalError("dse over MPI: unknown message tag " + std::to_string(st.MPI_TAG));
    const nlohmann::json j = nlohmann::json::parse(text);
    const auto group = j.at("points").get<std::vector<size_t>>();
    for (size_t i : group)
      if (i >= points.size())
        throw InternalError("dse over MPI: point " + std::to_string(i) + " of " +
                            std::to_string(points.size()) + " (the ranks read different sweeps)");
    outbox.send(nlohmann::json{{"group", j.at("group")},
                               {"records", measure_group(points, group, o, table)}}
                    .dump(),
                0, kRecords);
  }
}

}  // namespace weft::rt::dse
