// The accelerator as a SystemC TLM-2.0 component for virtual platforms (docs/systemc.md): a
// target socket serving the control-register map of hardware/isa/registers.h (the same map,
// with the same ap_ctrl_hs behaviour, as the RTL's `s_axi_control`), an initiator socket that
// carries every DMA access to the platform's memory (`m_axi_gmem`), and an interrupt output.
// Behind them the cycle model runs unchanged (simulator/cycle), so a run's data and cycle
// count are exactly those of the `cycle` engine. Timed, the run completes (ap_done, the
// interrupt) at start + cycles x clock period, with the DMA transactions at the times of their
// cycles under a quantum keeper; untimed, it completes at the start time.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
// clang-format on

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/systemc/dma_port.h"

namespace weft::sim::systemc {

/// How a run advances SystemC time.
enum class Timing {
  kTimed,    // completion at start + cycles x clock period; DMA at the times of its cycles
  kUntimed,  // the whole run, DMA included, at the start time
};

/// Construction options of the accelerator.
struct AcceleratorOptions {
  Timing timing = Timing::kTimed;
  /// The clock; zero takes 1 / platform.clock_mhz, rounded to the time resolution.
  sc_core::sc_time clock_period = sc_core::SC_ZERO_TIME;
  /// The DRAM window: the accelerator addresses device memory [DRAM base, DRAM base +
  /// dram_bytes) and reports an access beyond it as a DRAM range error. The model keeps a
  /// copy of the window (allocated at the first run), so keep it to what programs use.
  uint64_t dram_bytes = uint64_t{64} << 20;
  /// Use the direct memory interface when the memory grants it.
  bool use_dmi = true;
};

/// The accelerator: registers on `control`, DMA on `gmem`, `interrupt` = GIE && ISR.
class Accelerator : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Accelerator> control;  // s_axi_control: registers.h
  tlm_utils::simple_initiator_socket<Accelerator> gmem;  // m_axi_gmem: every DMA access
  sc_core::sc_out<bool> interrupt;                       // level; cleared through 0x0C

  SC_HAS_PROCESS(Accelerator);
  Accelerator(const sc_core::sc_module_name& name, const isa::Layout& layout,
              const isa::Platform& platform, const AcceleratorOptions& options = {});

  /// The clock period of timed runs.
  const sc_core::sc_time& clock_period() const { return period_; }
  /// Changes the timing mode or the use of DMI; takes effect at the next ap_start.
  void set_timing(Timing timing) { options_.timing = timing; }
  void set_use_dmi(bool use) { options_.use_dmi = use; }
  const AcceleratorOptions& options() const { return options_; }

  /// Whether a run is in progress (ap_start accepted, not yet done).
  bool busy() const { return regs_.running; }
  /// The last run's full message when its error register is set, else "".
  const std::string& error_detail() const { return error_detail_; }
  /// The cycle model's statistics of the last run that completed without error.
  const cycle::CycleStats& last_stats() const { return stats_; }
  /// The last run's traffic on `gmem`.
  const DmaStats& last_dma_stats() const { return port_.stats(); }

 private:
  struct Regs {
    bool gie = false, ier = false, isr = false, running = false, done = false;
    uint64_t insn_count = 0, insn_addr = 0, dram_base = 0;
    uint64_t cycles = 0, busy[3] = {0, 0, 0}, stall[3] = {0, 0, 0};
    uint32_t error = 0, error_insn = 0;
  };

  void control_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned control_transport_dbg(tlm::tlm_generic_payload& trans);
  void gmem_invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { port_.invalidate(start, end); }

  uint32_t read_reg(uint32_t offset, bool side_effects);
  tlm::tlm_response_status write_reg(uint32_t offset, uint32_t value,
                                     const sc_core::sc_time& delay);
  void run_thread();  // one run per ap_start
  void drive_irq();   // the only writer of `interrupt`
  void execute();     // the cycle model over the DMA port; fills the registers

  AcceleratorOptions options_;
  sc_core::sc_time period_;
  cycle::CycleSim sim_;
  DmaPort port_;
  std::vector<uint8_t> image_;  // the DRAM window as the cycle model sees it
  Regs regs_;
  sc_core::sc_event start_event_, irq_event_;
  cycle::CycleStats stats_;
  std::string error_detail_;
};

}  // namespace weft::sim::systemc
