// The Verilated RTL as an engine (DESIGN.md §5 `rtl`): one Verilated model of `weft_top` per
// configuration, built into the library when Verilator is installed. The harness drives the
// model's AXI4-Lite control slave with the register sequence of DESIGN.md §4 and serves its
// AXI4 master from the DRAM image through sim::AxiMemory, the same memory timing model the
// cycle model uses, so that both count the same cycles.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/memory/fault_plan.h"

namespace weft::driver::rtl {

/// Options of one RTL run.
struct RtlRunOptions {
  std::string wave_path;                   // write an FST waveform here when not empty
  const std::atomic<bool>* cancel = nullptr;
  /// Called now and then with (cycle, instructions completed, instructions in all).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  /// The watchdog's window: this many cycles in a row in which no unit makes progress (no
  /// memory traffic, no instruction starting or completing, no dispatch, no unit executing an
  /// instruction) end the run as a deadlock.
  uint64_t idle_limit = 100000;
  /// Faults to inject into the memory model the harness serves the AXI master from
  /// (simulator/memory/fault_plan.h); none when null. A fault ends the run with sim::BusFault.
  const sim::FaultPlan* faults = nullptr;
};

/// What one RTL run reports.
struct RtlRunResult {
  sim::cycle::CycleStats stats;     // cycles and accounting from the RTL's own counters
  uint32_t error = 0;               // the error register (isa::reg bits)
  uint32_t error_insn = 0;          // the error-instruction register
  std::string error_detail;         // deadlock: what each module waits for
  // Per instruction (program order): the cycle it started and the cycle it completed (pushes
  // happen then); UINT64_MAX when it did not.
  std::vector<uint64_t> start, done;
  // The register sequence's view: counters read back over AXI4-Lite.
  uint64_t reg_cycles = 0;
  uint64_t reg_busy[3] = {0, 0, 0}, reg_stall[3] = {0, 0, 0};
  uint64_t model_cycles = 0;        // clock cycles simulated, register accesses included
};

/// A Verilated model and its harness; on-chip buffers persist between runs, as in hardware.
class RtlEngine {
 public:
  virtual ~RtlEngine() = default;
  /// Runs `count` instructions at byte `insn_offset` of `dram` (updated in place). The
  /// program must already have passed sim::fetch_program.
  virtual RtlRunResult run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t count,
                           const RtlRunOptions& options) = 0;
};

/// Configurations whose RTL is built into this binary.
std::vector<std::string> rtl_configs();

/// Opens the RTL of `layout`'s configuration for `platform`. UserError when that configuration
/// is not built, or the platform's bus differs from the RTL's (128-bit data, 16-beat bursts).
std::unique_ptr<RtlEngine> make_rtl_engine(const isa::Layout& layout,
                                           const isa::Platform& platform);

}  // namespace weft::driver::rtl
