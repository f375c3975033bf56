// The Vitis kernel top hardware/fpga/weft_kernel.sv, Verilated, for the emulated xrt board
// (driver/xrt/emulated_board.cc): the host side drives its s_axi_control slave register by
// register as XRT does, and the harness serves its m_axi_gmem master from the emulated
// board's device memory with sim::AxiMemory, the platform memory model the rtl backend and the
// cycle model use, so that the core inside counts the same cycles as `rtl`. Built for the
// configurations in WEFT_KERNEL_CONFIGS (driver/rtl/CMakeLists.txt; build time).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/memory/fault_plan.h"

namespace weft::driver::rtl {

/// One Verilated weft_kernel and its memory-serving harness. Not thread-safe: one caller at a
/// time (the emulated board's worker clocks it during a run, the host thread otherwise).
class KernelTop {
 public:
  virtual ~KernelTop() = default;
  /// Serves m_axi_gmem from `memory` (device address = index) from now on with a fresh memory
  /// model; `faults` (may be null) answers the bursts it hits with SLVERR/DECERR on RRESP/BRESP
  /// (or never, for noresp) instead of stopping the simulation: the kernel sees the response.
  virtual void attach(std::vector<uint8_t>* memory, const sim::FaultPlan* faults) = 0;
  /// One AXI4-Lite write / read on s_axi_control (the clock runs while it takes).
  virtual void write_reg(uint32_t addr, uint32_t value) = 0;
  virtual uint32_t read_reg(uint32_t addr) = 0;
  /// Clocks the kernel until its `interrupt` output rises; false when `cancel` was set first.
  virtual bool run_until_interrupt(const std::atomic<bool>* cancel) = 0;
  /// Holds ap_rst_n low for a few cycles (after an abort); on-chip buffers keep their contents.
  virtual void reset() = 0;
  /// Clock cycles from the last ap_start write's acceptance to the interrupt.
  virtual uint64_t kernel_cycles() const = 0;
  /// The core's accounting of the last run (a simulation probe of weft_top's debug outputs,
  /// which stay inside the kernel) and the bursts the core issued on m_axi_gmem; the kernel's
  /// own status burst is not counted. `cycles` and `counters` are left to the caller.
  virtual sim::cycle::CycleStats core_stats() const = 0;
};

/// Configurations whose kernel top is built into this binary.
std::vector<std::string> kernel_top_configs();

/// The kernel top of `layout`'s configuration, or null when it is not built. UserError when
/// the platform's bus differs from the RTL's (as for make_rtl_engine).
std::unique_ptr<KernelTop> make_kernel_top(const isa::Layout& layout,
                                           const isa::Platform& platform);

}  // namespace weft::driver::rtl
