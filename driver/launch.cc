// The shared register sequence; see launch.h.
#include "driver/launch.h"

#include <algorithm>

#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::driver {

namespace reg = isa::reg;

namespace {
void write64(Device& dev, uint32_t offset, uint64_t v) {
  dev.write_reg(offset, static_cast<uint32_t>(v));
  dev.write_reg(offset + 4, static_cast<uint32_t>(v >> 32));
}
uint64_t read64(Device& dev, uint32_t offset) {
  const uint64_t lo = dev.read_reg(offset);
  return lo | (static_cast<uint64_t>(dev.read_reg(offset + 4)) << 32);
}
}  // namespace

void launch(Device& dev, uint64_t insn_addr, uint64_t insn_count, uint64_t dram_base) {
  const uint32_t ctrl = dev.read_reg(reg::kControl);
  if ((ctrl & reg::kApIdle) == 0) {
    throw UserError("device '" + dev.name() +
                    "' is busy (ap_idle is clear); wait for the "
                    "previous run first");
  }
  write64(dev, reg::kInsnCount, insn_count);
  write64(dev, reg::kInsnAddr, insn_addr);
  write64(dev, reg::kDramBase, dram_base);
  dev.write_reg(reg::kControl, reg::kApStart);
}

RunCounters wait(Device& dev, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto timed_out = [&] {
    return UserError("device '" + dev.name() + "' did not finish within " +
                     std::to_string(timeout.count()) + " ms (ap_done never set); the run was "
                     "stopped");
  };
  if (dev.run_here(deadline) == Device::HereEnd::kDeadline) throw timed_out();
  auto pause = std::chrono::microseconds(10);
  while ((dev.read_reg(reg::kControl) & reg::kApDone) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      dev.abort();  // a run past its deadline is stopped, not left running behind the error
      throw timed_out();
    }
    dev.wait_for_end(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
  const uint32_t error = dev.read_reg(reg::kError);
  if (error != 0) {
    std::string detail = dev.error_detail();
    if (detail.empty()) {
      detail = "device '" + dev.name() + "' reported";
      for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (error & bit) detail += std::string(" ") + reg::error_bit_name(bit) + ";";
      }
      detail.pop_back();
      detail += " at instruction " + std::to_string(dev.read_reg(reg::kErrorInsn));
    }
    throw UserError(detail);
  }
  RunCounters c;
  c.cycles = read64(dev, reg::kCycles);
  c.load_busy = read64(dev, reg::kLoadBusy);
  c.load_stall = read64(dev, reg::kLoadStall);
  c.compute_busy = read64(dev, reg::kComputeBusy);
  c.compute_stall = read64(dev, reg::kComputeStall);
  c.store_busy = read64(dev, reg::kStoreBusy);
  c.store_stall = read64(dev, reg::kStoreStall);
  return c;
}

RunCounters run(Device& dev, uint64_t insn_addr, uint64_t insn_count,
                std::chrono::milliseconds timeout, uint64_t dram_base) {
  launch(dev, insn_addr, insn_count, dram_base);
  return wait(dev, timeout);
}

}  // namespace weft::driver
