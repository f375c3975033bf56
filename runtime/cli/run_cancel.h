// Stopping single-operator runs from another thread, as the Python package's Ctrl-C does: a
// run registers the device it opened while it runs on it; cancel() aborts the run in flight
// (Device::abort, which ends it with the device's "cancelled" error) and makes every later run
// that would register fail at once, so that an operator that runs several times (a knob search)
// stops too. Runs on the host CPU or a GPU (op_target.h) have no device to abort; they call
// check() between their timed runs.
#pragma once

#include <mutex>

#include "driver/device.h"

namespace weft::cli {

class RunCanceller {
 public:
  /// Aborts the run in progress, if any, and refuses later ones. Any thread; repeatable.
  void cancel();
  bool cancelled() const;
  /// UserError when cancel() came: a run with no device (the CPU or GPU targets) calls it
  /// between its steps.
  void check() const;

  /// Registers `dev` for the lifetime of this object; UserError when cancel() came first.
  class Running {
   public:
    Running(RunCanceller* c, driver::Device& dev);
    ~Running();
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    RunCanceller* c_;
  };

 private:
  mutable std::mutex mu_;
  driver::Device* running_ = nullptr;
  bool cancelled_ = false;
};

}  // namespace weft::cli
