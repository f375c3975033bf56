// The CPU backend's thread pool: parallel loops of JIT-compiled code run on it. A pool of T
// threads is the calling thread plus T-1 workers; parallel_for hands out the iterations of
// [0, n) one at a time from a shared counter (dynamic scheduling: a thread slowed by another
// process on its core takes fewer; iterations are independent, so results do not depend on
// which thread ran them). A parallel loop inside a task runs serially on the thread that
// reached it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace weft::rt::cpu {

/// The task signature of generated parallel loops: task(i, closure).
using TaskFn = void (*)(int64_t i, void* closure);

class ThreadPool {
 public:
  /// A pool of `threads` (>= 1) threads; UserError otherwise.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  /// Runs task(i, closure) for every i in [0, n) and returns when all are done.
  void parallel_for(int64_t n, TaskFn task, void* closure);

 private:
  void worker(int index);
  void run_chunk(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  TaskFn task_ = nullptr;
  void* closure_ = nullptr;
};

/// Makes `pool` the one that generated parallel loops on this thread use, for this scope.
class ScopedPool {
 public:
  explicit ScopedPool(ThreadPool* pool);
  ~ScopedPool();

 private:
  ThreadPool* saved_;
};

}  // namespace weft::rt::cpu

/// The entry point generated code calls for a parallel loop (compiler/codegen/llvm's
/// kParallelForSymbol): the current thread's pool, or a serial loop when there is none.
extern "C" void weft_cpu_parallel_for(int64_t n, weft::rt::cpu::TaskFn task, void* closure);
