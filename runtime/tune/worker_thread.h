// A CandidateWorker on its own thread, fed through a request queue and answering into a reply
// queue: rank 0's measuring worker under MPI, so the coordinating main thread (which alone
// talks MPI) stays free to answer the worker ranks while a candidate is compiled and measured
// beside it. The coordinator waits on the reply queue with a timeout, so it sleeps instead of
// spinning and still wakes at once when its own worker finishes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/tune/candidate_worker.h"

namespace weft::rt::tune {

class WorkerThread {
 public:
  /// What a request asks for.
  enum class Kind { kPrepare, kMeasure, kClear };
  explicit WorkerThread(const std::vector<Task>& tasks);
  ~WorkerThread();  // finishes the request in hand, drops the rest, joins
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  void post(Kind kind, nlohmann::json request);
  /// Takes a reply if one is ready, waiting at most `timeout` (forever when negative).
  bool take(nlohmann::json* reply, std::chrono::microseconds timeout);

 private:
  void loop();
  CandidateWorker worker_;
  std::mutex m_;
  std::condition_variable requests_cv_, replies_cv_;
  std::deque<std::pair<Kind, nlohmann::json>> requests_;
  std::deque<nlohmann::json> replies_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace weft::rt::tune
