// The CPU thread pool; see thread_pool.h.
#include "runtime/cpu/thread_pool.h"

#include <string>

#include "hardware/isa/errors.h"

namespace weft::rt::cpu {

namespace {
thread_local ThreadPool* t_pool = nullptr;
thread_local bool t_in_task = false;
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads < 1 || threads > 1024) {
    throw UserError("thread count " + std::to_string(threads) + " is outside [1, 1024]");
  }
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_chunk(int) {
  t_in_task = true;
  for (int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < n_;
       i = next_.fetch_add(1, std::memory_order_relaxed)) {
    task_(i, closure_);
  }
  t_in_task = false;
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_chunk(index);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, TaskFn task, void* closure) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1) {
    for (int64_t i = 0; i < n; ++i) task(i, closure);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    task_ = task;
    closure_ = closure;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  run_chunk(0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
}

ScopedPool::ScopedPool(ThreadPool* pool) : saved_(t_pool) { t_pool = pool; }
ScopedPool::~ScopedPool() { t_pool = saved_; }

}  // namespace weft::rt::cpu

extern "C" void weft_cpu_parallel_for(int64_t n, weft::rt::cpu::TaskFn task, void* closure) {
  using namespace weft::rt::cpu;
  if (t_pool && !t_in_task) {
    t_pool->parallel_for(n, task, closure);
    return;
  }
  for (int64_t i = 0; i < n; ++i) task(i, closure);
}
