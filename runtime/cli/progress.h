// Progress of a long device run on stderr: "<who>: cycle N, I/T instructions (P%), about Xs
// left", at most twice a second and only once the run has taken more than a second; only when
// stderr is a terminal or the user asked for it (--progress), so scripted runs stay quiet.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace weft::cli {

class Progress {
 public:
  Progress(std::string who, bool forced) : who_(std::move(who)), enabled_(forced || ::isatty(2)) {}
  /// A report: `cycle` is 0 on engines without timing.
  void operator()(uint64_t cycle, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(500)) {
      return;
    }
    last_ = now;
    shown_ = true;
    const double frac = total ? double(done) / double(total) : 1.0;
    std::string line = "\r" + who_ + ": ";
    if (cycle) line += "cycle " + std::to_string(cycle) + ", ";
    line += std::to_string(done) + "/" + std::to_string(total) + " instructions (" +
            std::to_string(int(100 * frac)) + "%)";
    // Instructions differ in length, so the time left is a rough guide.
    if (frac > 0.01 && frac < 1) {
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      line += ", about " + std::to_string(int64_t(elapsed * (1 - frac) / frac) + 1) + " s left";
    }
    std::fprintf(stderr, "%s   ", line.c_str());
  }
  /// Ends the progress line, if one was shown.
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

 private:
  std::string who_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_;
};

}  // namespace weft::cli
