// The register-level start/wait sequence of DESIGN.md §4, written once for every backend:
// program the arguments, raise ap_start, poll ap_done with a timeout, then read the counters
// and the sticky error register and turn an error into the same message the simulators give.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "driver/device.h"

namespace weft::driver {

/// What the registers say about a finished run.
struct RunCounters {
  uint64_t cycles = 0;
  uint64_t load_busy = 0, load_stall = 0;
  uint64_t compute_busy = 0, compute_stall = 0;
  uint64_t store_busy = 0, store_stall = 0;
};

/// Writes the arguments and sets ap_start. UserError when the device is not idle.
void launch(Device& dev, uint64_t insn_addr, uint64_t insn_count, uint64_t dram_base = 0);

/// Lets the device run the run on this thread where it can (Device::run_here), else polls
/// ap_done until it is set; a run still going after `timeout` is stopped (Device::abort) and
/// throws UserError naming the device. Then reads the error register: a set bit throws
/// UserError with the device's detailed message, or one built from the bits and the
/// instruction index. Returns the counters.
RunCounters wait(Device& dev, std::chrono::milliseconds timeout);

/// launch + wait.
RunCounters run(Device& dev, uint64_t insn_addr, uint64_t insn_count,
                std::chrono::milliseconds timeout, uint64_t dram_base = 0);

}  // namespace weft::driver
