// The thin seam between Weft's xrt engine and a board (DESIGN.md §1 driver/xrt): a device that
// holds buffers (host memory and device memory kept apart, joined only by sync) and runs the
// one kernel with its arguments and a timeout. Two implementations: the real one on the XRT
// native C++ API (xrt::device, load_xclbin, xrt::kernel, xrt::bo, xrt::run) and an emulated
// one that serves the same calls from a Weft engine (the Verilated RTL or the cycle model), so
// that the exact host code that runs on a board runs here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::sim {
struct FaultPlan;
}

namespace weft::driver::xrt {

/// A buffer object: a host copy and a device copy of the same bytes.
class Buffer {
 public:
  virtual ~Buffer() = default;
  /// The host copy (writes reach the device only through sync_to_device).
  virtual uint8_t* host() = 0;
  virtual uint64_t size() const = 0;
  /// The device address the kernel sees.
  virtual uint64_t device_address() const = 0;
  /// The memory bank (XRT group id) the buffer lives in.
  virtual int bank() const = 0;
  /// Copies bytes [offset, offset+bytes) host -> device.
  virtual void sync_to_device(uint64_t offset, uint64_t bytes) = 0;
  /// Copies bytes [offset, offset+bytes) device -> host.
  virtual void sync_from_device(uint64_t offset, uint64_t bytes) = 0;
};

/// What a run ended as.
enum class RunState { kRunning, kCompleted, kTimeout, kAborted, kError };

/// The weft kernel on a board.
class Kernel {
 public:
  virtual ~Kernel() = default;
  /// The register offset of argument `index` as the board's metadata says.
  virtual uint32_t arg_offset(int index) const = 0;
  /// The memory bank argument `index` (a pointer) must live in.
  virtual int arg_bank(int index) const = 0;
  /// Starts a run: scalars by value, pointer arguments as buffers (hardware/isa/registers.h
  /// kKernelArgs order: insn_count, insn_addr, dram_base, status).
  /// `dram_offset` bytes into `dram` is where the kernel's DMA addresses start (dram_base).
  virtual void start(uint64_t insn_count, uint64_t insn_addr, Buffer& dram, Buffer& status,
                     uint64_t dram_offset = 0) = 0;
  /// Waits up to `timeout` for the run; kRunning is never returned.
  virtual RunState wait(std::chrono::milliseconds timeout) = 0;
  /// Stops the run in progress (after a timeout); returns when the kernel is idle.
  virtual void abort() = 0;
  /// The register image of the last start, as 32-bit words from offset 0 (what the scheduler
  /// writes to s_axi_control before ap_start).
  virtual std::vector<uint32_t> register_image() const = 0;
  /// Emulated kernels: the engine's full message for the last run's error ("" otherwise).
  virtual std::string error_detail() const { return ""; }
  /// Emulated kernels: the engine's run details (cycles, modules...); empty on a board.
  virtual nlohmann::ordered_json run_details() const { return nlohmann::ordered_json::object(); }
  /// The emulated kernel top: clock cycles from the acceptance of the ap_start write to the
  /// interrupt of the last run (0 elsewhere).
  virtual uint64_t kernel_clock_cycles() const { return 0; }
};

/// A board with the weft kernel loaded.
class Board {
 public:
  virtual ~Board() = default;
  /// Describes the board ("xrt device 0 (xilinx_u250...)", "emulated rtl").
  virtual std::string name() const = 0;
  /// Allocates a buffer of `bytes` in memory bank `bank`.
  virtual std::unique_ptr<Buffer> alloc(uint64_t bytes, int bank) = 0;
  /// The loaded kernel.
  virtual Kernel& kernel() = 0;
};

/// Whether this build has the real XRT implementation (libxrt-dev was found).
bool xrt_library_built();

/// Opens device `index`, loads `xclbin` and opens the weft kernel, checking its arguments
/// against the register map. UserError naming what is missing: the library, XILINX_XRT, the
/// device, the file, the kernel or an argument.
std::unique_ptr<Board> open_xrt_board(const std::string& xclbin, int index);

/// The emulated board: `engine` is `rtl` (the Verilated kernel top hardware/fpga/weft_kernel.sv
/// where it is built for the configuration, else weft_top through the rtl backend) or `cycle`
/// (the cycle model). `faults` (may be null) are answered on the bus (rtl: RRESP/BRESP the
/// kernel sees) or stop the engine (cycle, weft_top).
std::unique_ptr<Board> open_emulated_board(const std::string& engine, const isa::Layout& layout,
                                           const isa::Platform& platform, uint64_t memory_bytes,
                                           const sim::FaultPlan* faults = nullptr);

}  // namespace weft::driver::xrt
