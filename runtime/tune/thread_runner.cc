// A thread-pool Runner (see thread_runner.h).
#include "runtime/tune/thread_runner.h"

#include <atomic>
#include <mutex>
#include <exception>
#include <thread>

#include "hardware/isa/errors.h"

namespace weft::rt::tune {

void parallel_for(size_t n, int workers, const std::function<void(size_t)>& body) {
  if (workers <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex m;
  std::vector<std::thread> pool;
  for (int w = 0; w < workers && static_cast<size_t>(w) < n; ++w) {
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        try {
          body(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (!failure) failure = std::current_exception();
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

ThreadRunner::ThreadRunner(int workers) : workers_(workers) {
  if (workers < 1) throw UserError("tune: --workers must be at least 1");
}

std::vector<MeasureResult> ThreadRunner::run(const Task& task,
                                             const std::vector<compiler::tune::Candidate>& cands,
                                             double stop_above) {
  std::vector<MeasureResult> out(cands.size());
  parallel_for(cands.size(), workers_, [&](size_t i) {
    out[i] = task.measurer->measure(cands[i], stop_above);
  });
  return out;
}

}  // namespace weft::rt::tune
