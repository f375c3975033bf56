// The cycle-exact model of the accelerator (docs/microarchitecture.md). It moves real data
// through its own data path and counts exact cycles. Time advances from one event to the next
// (a module becoming free, a token or command becoming visible, a memory slot freeing), and
// within one cycle the work is done in the fixed order of CycleRun::tick's numbered steps
// (cycle_run.h); cycles that are skipped are accounted to the state every unit was in, which
// cannot change between events, so the count is the same as ticking every cycle.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/cycle/gemm_kernel.h"
#include "simulator/cycle/trace.h"
#include "simulator/memory/dram_port.h"
#include "simulator/memory/fault_plan.h"

namespace weft::sim::cycle {

/// Options of one run.
struct RunOptions {
  Trace* trace = nullptr;  // record a timeline when set
  /// Called now and then with (current cycle, instructions completed, total instructions).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  /// Setting `*cancel` from another thread stops the run with RunCancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// Told of every DMA burst (the instruction stream at cycle 0, then each LOAD and STORE
  /// burst at the cycle the model moves its data) and, now and then, of the current cycle.
  DramPort* port = nullptr;
  /// Faults to inject into the memory system (simulator/memory/fault_plan.h); none when null.
  const FaultPlan* faults = nullptr;
};

/// Defined since ModelOptions exists, for tools that also build against older models.
#define WEFT_CYCLE_MODEL_OPTIONS 1

/// How the model computes. Every choice gives the same cycles, accounting and data; the tests
/// compare them.
struct ModelOptions {
  /// Take the shortcuts of docs/microarchitecture.md ("Shortcuts"); false steps every GEMM
  /// micro-op iteration through the scoreboard and the data path one by one, and grants every
  /// read burst in a tick of its own (the reference).
  bool shortcuts = true;
  /// The instruction set of the int8 GEMM kernel (kAuto: the best the host supports).
  KernelIsa kernel = KernelIsa::kAuto;
};

/// The cycle model; on-chip buffers persist between runs, as in hardware.
class CycleSim {
 public:
  CycleSim(const isa::Layout& layout, const isa::Platform& platform,
           const ModelOptions& model = {});
  ~CycleSim();
  CycleSim(const CycleSim&) = delete;
  CycleSim& operator=(const CycleSim&) = delete;

  /// Runs `insn_count` instructions at byte `insn_offset` of `dram`, updating it in place.
  /// Throws UserError for a bad program, a deadlock (naming the waiting modules and queues),
  /// a token-queue overflow, or work left when FINISH runs.
  CycleStats run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t insn_count,
                 const RunOptions& options = {});

  /// The GEMM kernel's instruction set in use (kAuto resolved).
  KernelIsa kernel_isa() const;

 private:
  struct State;
  const isa::Layout& l_;
  isa::Platform p_;
  ModelOptions model_;
  std::unique_ptr<State> state_;  // the on-chip state that persists between runs
};

}  // namespace weft::sim::cycle
