// The driver's one Device interface (DESIGN.md §1, §4): device memory, control registers and
// nothing else, so that the same launch code (launch.h) drives every backend. Backends are
// chosen by name at run time: `functional`, `cycle`, `rtl` and `xrt`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::sim {
struct FaultPlan;
}
namespace weft::sim::cycle {
class Trace;
}

namespace weft::driver {

/// How to open a device.
struct DeviceOptions {
  const isa::Layout* layout = nullptr;      // required
  const isa::Platform* platform = nullptr;  // required for timing backends
  uint64_t memory_bytes = 64ull << 20;      // simulated device memory
  sim::cycle::Trace* trace = nullptr;       // cycle backend: record a timeline
  /// Long runs call this now and then with (cycle, instructions done, instructions total);
  /// the cycle is 0 on engines without timing.
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  /// cycle and rtl backends: faults to inject into the memory system (docs/reliability.md);
  /// kept by pointer, none when null.
  const sim::FaultPlan* faults = nullptr;
  /// xrt backend (driver/xrt): the .xclbin to load and the device index, or, with
  /// `xrt_emulate` set to `rtl` or `cycle`, the emulated board (no .xclbin needed); the memory
  /// bank buffers go to (-1: the bank the kernel's m_axi_gmem is connected to).
  std::string xclbin;
  int xrt_device = 0;
  std::string xrt_emulate;
  int xrt_bank = -1;
};

/// An accelerator behind its memory and AXI4-Lite control registers.
class Device {
 public:
  Device() : serial_(next_serial_++) {}
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device() = default;
  /// A number no other device of this process had: it tells a device from a later one opened
  /// at the same address (what a caller that keeps state per device must compare).
  uint64_t serial() const { return serial_; }
  /// The backend name (`functional`, `cycle`, ...).
  virtual std::string name() const = 0;

  /// Allocates device memory (64-byte aligned); returns its device address. UserError when
  /// the memory is exhausted.
  virtual uint64_t alloc(uint64_t bytes) = 0;
  /// Frees an allocation made by alloc; UserError for an unknown address.
  virtual void free(uint64_t addr) = 0;
  /// Copies host bytes to device memory; UserError when the range is outside device memory.
  virtual void copy_to_device(uint64_t addr, const void* src, uint64_t bytes) = 0;
  /// Copies device memory to the host; UserError when the range is outside device memory.
  virtual void copy_from_device(uint64_t addr, void* dst, uint64_t bytes) = 0;

  /// Writes a 32-bit control register (hardware/isa/registers.h).
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;
  /// Reads a 32-bit control register.
  virtual uint32_t read_reg(uint32_t offset) = 0;

  /// Waits up to `most` for a run in progress to end, returning as soon as it has where the
  /// device can say so (an in-process simulator); `wait` reads ap_done after each call. The
  /// default sleeps `most`, so that `wait` polls.
  virtual void wait_for_end(std::chrono::microseconds most) { std::this_thread::sleep_for(most); }

  /// How run_here ended.
  enum class HereEnd {
    kNotHere,   // it ran nothing: a device that runs on its own, or a run another thread took
    kEnded,     // the run ended (ap_done is set), with or without an error
    kDeadline,  // the run was still going at the deadline and was stopped, as abort() stops it
  };
  /// Where the device can (a simulator in this process), runs a started run on the calling
  /// thread: a short run is spared the hand-over to the device's own thread and back, which on
  /// a network of many small kernels costs more than the kernels. `wait` calls it first.
  virtual HereEnd run_here(std::chrono::steady_clock::time_point /*deadline*/) {
    return HereEnd::kNotHere;
  }

  /// Stops a run in progress, as the host does to a device that does not finish: returns once
  /// the device is idle again, its run ended with an error ("cancelled"). No effect when idle.
  virtual void abort() {}

  /// Simulators: the full message of the last run's error (empty when there is none, or on
  /// hardware, where only the error register exists).
  virtual std::string error_detail() const { return ""; }
  /// Simulators: everything the last run measured beyond the registers (JSON object).
  virtual nlohmann::ordered_json run_details() const { return nlohmann::ordered_json::object(); }

 private:
  static inline std::atomic<uint64_t> next_serial_{1};
  const uint64_t serial_;
};

/// Backend names accepted by open_device.
std::vector<std::string> device_names();

/// Opens a backend by name; UserError naming the available ones otherwise.
std::unique_ptr<Device> open_device(const std::string& name, const DeviceOptions& options);

}  // namespace weft::driver
