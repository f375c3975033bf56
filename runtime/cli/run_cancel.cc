// Cancelling single-operator runs; see run_cancel.h.
#include "runtime/cli/run_cancel.h"

#include "hardware/isa/errors.h"

namespace weft::cli {

void RunCanceller::cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  if (running_) running_->abort();  // returns once the device is idle
}

bool RunCanceller::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

void RunCanceller::check() const {
  if (cancelled()) throw UserError("the run was cancelled");
}

RunCanceller::Running::Running(RunCanceller* c, driver::Device& dev) : c_(c) {
  if (!c_) return;
  std::lock_guard<std::mutex> lock(c_->mu_);
  if (c_->cancelled_) throw UserError("the run was cancelled before it started");
  c_->running_ = &dev;
}

RunCanceller::Running::~Running() {
  if (!c_) return;
  std::lock_guard<std::mutex> lock(c_->mu_);
  c_->running_ = nullptr;
}

}  // namespace weft::cli
