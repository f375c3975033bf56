// A CandidateWorker on a thread (see worker_thread.h).
#include "runtime/tune/worker_thread.h"

namespace weft::rt::tune {

WorkerThread::WorkerThread(const std::vector<Task>& tasks)
    : worker_(tasks), thread_([this] { loop(); }) {}

WorkerThread::~WorkerThread() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  requests_cv_.notify_all();
  thread_.join();
}

void WorkerThread::post(Kind kind, nlohmann::json request) {
  {
    std::lock_guard<std::mutex> lock(m_);
    requests_.emplace_back(kind, std::move(request));
  }
  requests_cv_.notify_one();
}

bool WorkerThread::take(nlohmann::json* reply, std::chrono::microseconds timeout) {
  std::unique_lock<std::mutex> lock(m_);
  auto ready = [&] { return !replies_.empty(); };
  if (timeout.count() < 0)
    replies_cv_.wait(lock, ready);
  else if (!replies_cv_.wait_for(lock, timeout, ready))
    return false;
  *reply = std::move(replies_.front());
  replies_.pop_front();
  return true;
}

void WorkerThread::loop() {
  for (;;) {
    std::pair<Kind, nlohmann::json> r;
    {
      std::unique_lock<std::mutex> lock(m_);
      requests_cv_.wait(lock, [&] { return stop_ || !requests_.empty(); });
      if (stop_) return;
      r = std::move(requests_.front());
      requests_.pop_front();
    }
    // The worker's methods turn every failure into the candidate's error.
    nlohmann::json reply;
    if (r.first == Kind::kClear) {
      worker_.clear();
      continue;
    }
    reply = r.first == Kind::kPrepare ? worker_.prepare(r.second) : worker_.measure(r.second);
    {
      std::lock_guard<std::mutex> lock(m_);
      replies_.push_back(std::move(reply));
    }
    replies_cv_.notify_all();
  }
}

}  // namespace weft::rt::tune
