// Ctrl-C during a long run: the engines do not know about Python, so the run goes to a worker
// thread with the GIL released while the calling thread wakes every few tens of milliseconds to
// let Python run its signal handlers (PyErr_CheckSignals, which only the main thread may do).
// When a handler raises (KeyboardInterrupt), the run is cancelled through its own hook
// (GraphExecutor::cancel aborts the kernel in flight) and the exception goes to the caller.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "python/src/bindings.h"

namespace weft::py_bind {

void run_interruptible(const std::function<void()>& body, const std::function<void()>& cancel) {
  std::exception_ptr error;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread worker;
  {
    py::gil_scoped_release release;
    worker = std::thread([&] {
      try {
        body();
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_all();
    });
  }
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
      if (done) break;
    }
    // A cancel can land before the run has started (and be forgotten by it), so it is repeated
    // until the run ends.
    if (!interrupted && PyErr_CheckSignals() != 0) interrupted = true;
    if (interrupted) cancel();
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (interrupted) throw py::error_already_set();  // the handler's exception, not the cancel's
  if (error) std::rethrow_exception(error);
}

}  // namespace weft::py_bind
