// Progress of a long device run on stderr: "<who>: cycle N, I/T instructions (P%)", at most
// twice a second and only once the run has taken more than a second; only when stderr is a
// terminal or the user asked for it (--progress), so scripted runs stay quiet.
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
  void operator()(uint64_t cycle, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(500)) {
      return;
    }
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r%s: cycle %llu, %llu/%llu instructions (%.0f%%)   ", who_.c_str(),
                 static_cast<unsigned long long>(cycle), static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), total ? 100.0 * done / total : 100.0);
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
