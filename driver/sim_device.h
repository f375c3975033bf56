// Devices backed by a simulator: the device memory is a host vector, the control registers a
// small array. ap_start queues the run; `wait` runs it on the caller's thread (run_here) while
// the device's worker thread keeps the deadline, so that a timeout stops it as on hardware.
// Anything else that looks for progress (polling ap_done, wait_for_end, abort) hands a queued
// run to the worker instead. A failed run sets the sticky error register, exactly as the
// hardware does, and keeps the simulator's full message. Closing the device cancels a run
// still in progress.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "hardware/isa/registers.h"
#include "simulator/common/stats.h"

namespace weft::driver {

/// Memory, registers and allocator shared by the simulator backends.
class SimDevice : public Device {
 public:
  explicit SimDevice(const DeviceOptions& options);
  ~SimDevice() override;

  uint64_t alloc(uint64_t bytes) override;
  void free(uint64_t addr) override;
  void copy_to_device(uint64_t addr, const void* src, uint64_t bytes) override;
  void copy_from_device(uint64_t addr, void* dst, uint64_t bytes) override;
  void write_reg(uint32_t offset, uint32_t value) override;
  uint32_t read_reg(uint32_t offset) override;
  std::string error_detail() const override { return error_detail_; }
  nlohmann::ordered_json run_details() const override { return details_; }
  void abort() override;
  void wait_for_end(std::chrono::microseconds most) override;
  HereEnd run_here(std::chrono::steady_clock::time_point deadline) override;

 protected:
  /// What one engine run reports to the registers.
  struct EngineResult {
    sim::VtaCounters counters;
    uint64_t cycles = 0;
    uint64_t busy[3] = {0, 0, 0};  // load, compute, store
    uint64_t stall[3] = {0, 0, 0};
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
  };
  /// Runs `insn_count` instructions at byte `insn_offset` of `dram`; long runs look at
  /// `cancel` and stop with sim::RunCancelled when it is set.
  virtual EngineResult execute(std::vector<uint8_t>& dram, uint64_t insn_offset,
                               uint64_t insn_count, const std::atomic<bool>* cancel) = 0;
  const DeviceOptions& options() const { return options_; }
  /// Stops (cancelling a run in progress) and joins the worker; derived destructors call it
  /// before their engine goes away.
  void stop_worker();

 private:
  void check_range(uint64_t addr, uint64_t bytes, const char* what) const;
  bool idle() const {
    return (control_.load(std::memory_order_acquire) & isa::reg::kApIdle) != 0;
  }
  void check_idle(const char* what) const;
  void start();
  void work();  // the worker's loop: queued runs nobody runs here, and run_here's deadline
  void hand_to_worker();  // mu_ held: wakes the worker for a run nobody has taken
  void run_engine(uint64_t insn_addr, uint64_t count, uint64_t base);
  void set64(uint32_t offset, uint64_t v);
  uint64_t get64(uint32_t offset) const;

  DeviceOptions options_;
  std::vector<uint8_t> memory_;
  std::map<uint64_t, uint64_t> allocations_;  // address -> bytes
  // regs_[0] (control) is also written by the worker: it is atomic, and the worker publishes
  // the other registers before it sets ap_done (release), read after ap_done (acquire).
  std::atomic<uint32_t> control_{0};
  // job_ is a started run no thread has taken yet: run_here or the worker (woken on job_cv_)
  // takes it. ap_done is set under mu_ and announced on end_cv_.
  struct Job {
    uint64_t insn_addr, count, base;
  };
  using Clock = std::chrono::steady_clock;
  std::mutex mu_;
  std::condition_variable job_cv_, end_cv_;
  std::optional<Job> job_;
  bool shutdown_ = false;
  bool here_ = false;           // run_here's run is in progress
  bool deadline_passed_ = false;  // ... and the worker stopped it at its deadline
  Clock::time_point here_deadline_;
  Clock::time_point worker_wakes_ = Clock::time_point::max();  // when the sleeping worker looks
  std::array<uint32_t, isa::reg::kMapEnd / 4> regs_{};
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  std::string error_detail_;
  nlohmann::ordered_json details_ = nlohmann::ordered_json::object();
};

/// The functional (golden) model behind the device interface.
std::unique_ptr<Device> make_functional_device(const DeviceOptions& options);
/// The cycle-exact model behind the device interface.
std::unique_ptr<Device> make_cycle_device(const DeviceOptions& options);

}  // namespace weft::driver
