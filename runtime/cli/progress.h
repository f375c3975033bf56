// Progress on stderr. Progress: a long device run, "<who>: cycle N, I/T instructions (P%), about
// Xs left", at most twice a second and only once the run has taken more than a second; only
// when stderr is a terminal or the user asked for it (--progress), so scripted runs stay quiet.
// Phases: the steps of a long command (compiling, running, checking), one line each once the
// command has taken more than a second, and a line every ten seconds while one step goes on.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

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

/// The phases of a long command on stderr: "<who>: <phase> (12 s so far)". Unless forced,
/// nothing is printed during the first second (a short command stays quiet), then each phase
/// once as it starts
/// (the one in progress at that moment included) and again every ten seconds while it lasts,
/// from a thread of its own so that a long silent step (a network on the cycle model, the
/// reference interpreter) still shows.
class Phases {
 public:
  /// `forced` (--progress): every phase from the start.
  Phases(std::string who, bool forced) : who_(std::move(who)), forced_(forced) {
    ticker_ = std::thread([this] { tick(); });
  }
  ~Phases() { done(); }
  Phases(const Phases&) = delete;
  Phases& operator=(const Phases&) = delete;

  /// The command moves on to `phase`.
  void operator()(const std::string& phase) {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = phase;
    shown_ = false;
    if (forced_ || Clock::now() - start_ >= kQuiet) show();
    wake_.notify_all();
  }
  /// No more phases; prints nothing more.
  void done() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      wake_.notify_all();
    }
    if (ticker_.joinable()) ticker_.join();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kQuiet{1}, kEvery{10};

  // With mu_ held.
  void show() {
    if (phase_.empty()) return;
    const double total = std::chrono::duration<double>(Clock::now() - start_).count();
    std::fprintf(stderr, "%s: %s (%.0f s so far)\n", who_.c_str(), phase_.c_str(), total);
    std::fflush(stderr);
    shown_ = true;
    last_shown_ = Clock::now();
  }
  void tick() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      const auto now = Clock::now();
      if (now - start_ >= kQuiet && (!shown_ || now - last_shown_ >= kEvery)) show();
      const auto next = shown_ ? last_shown_ + kEvery : start_ + kQuiet;
      wake_.wait_until(lock, std::max(next, Clock::now() + std::chrono::milliseconds(50)));
    }
  }

  std::string who_;
  bool forced_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::string phase_;
  bool shown_ = false, stop_ = false;
  Clock::time_point start_ = Clock::now(), last_shown_ = start_;
  std::thread ticker_;  // last: started once everything above is set
};

}  // namespace weft::cli
