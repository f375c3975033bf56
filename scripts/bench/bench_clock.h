// Timing for the simulator benchmarks: wall-clock time and the calling thread's CPU time (on a
// shared machine a run that is descheduled loses wall time but not CPU time), and medians.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace weft::bench {

/// Started at construction; reads elapsed wall and thread CPU seconds.
class Stopwatch {
 public:
  Stopwatch() : wall0_(std::chrono::steady_clock::now()), cpu0_(thread_cpu()) {}
  double wall() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
  }
  double cpu() const { return thread_cpu() - cpu0_; }

 private:
  static double thread_cpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  std::chrono::steady_clock::time_point wall0_;
  double cpu0_;
};

/// The median (the upper one of an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace weft::bench
