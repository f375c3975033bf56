// The energy model (docs/codesign.md, "Energy"): a run's action counts (the statistics'
// sim::Activity) priced by an energy table, per component: the GEMM core's MACs and
// accumulator adds, the ALU, each on-chip buffer at its own size, DRAM, the queues (fetch
// FIFO, command queues, token counters) and the compute pipeline's registers; with pJ per MAC
// and the average power at the platform's clock. Dynamic energy only: no leakage, no clock
// tree, no control logic beyond what the counts name.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "hardware/cost/energy_table.h"
#include "hardware/isa/layout.h"
#include "simulator/common/activity.h"

namespace weft::cost {

/// Where energy goes.
enum class Component : int {
  kGemm,      // int8 MACs and int32 accumulator adds
  kAlu,       // tensor-ALU lane operations
  kUopSram,   // the four on-chip buffers, each at its size
  kInpSram,
  kWgtSram,
  kAccSram,
  kDram,      // bytes to and from DRAM, instruction fetch included
  kQueues,    // fetch FIFO, command queues and dependency-token counters
  kPipeline,  // operands and results latched by the GEMM/ALU pipeline
};
inline constexpr int kComponents = 9;
/// "gemm", "alu", "uop_sram", "inp_sram", "wgt_sram", "acc_sram", "dram", "queues",
/// "pipeline": the names of the JSON report.
const char* component_name(Component c);

/// The energy of a run (or of several, added).
struct Energy {
  std::array<double, kComponents> pj{};
  uint64_t macs = 0;    // MACs the GEMM core executed (padding included)
  uint64_t cycles = 0;  // the run's cycles, for its average power

  double of(Component c) const { return pj[static_cast<int>(c)]; }
  double total_pj() const;
  /// Everything but DRAM.
  double on_chip_pj() const { return total_pj() - of(Component::kDram); }
  /// Average power in mW over the run's cycles at `clock_mhz` (0 for a run of no cycles).
  double average_power_mw(double clock_mhz) const;
  Energy& operator+=(const Energy& o);
};

/// The energy of `a` on configuration `l` (its buffer sizes and token-queue depth) priced by
/// `t`; `cycles` is the run's length.
Energy energy_of(const EnergyTable& t, const isa::Layout& l, const sim::Activity& a,
                 uint64_t cycles);

/// The "energy" object of a run's JSON report: the table and process, total and on-chip
/// energy, pJ per executed MAC (and per useful MAC when `useful_macs` > 0), the average power
/// at `clock_mhz`, and the components.
nlohmann::ordered_json to_json(const Energy& e, const EnergyTable& t, double clock_mhz,
                               int64_t useful_macs = 0);

/// One line for people: total, pJ per MAC (per useful MAC when `useful_macs` > 0, else per
/// executed MAC) in all and on chip, power, and the three largest components' shares.
std::string summary(const Energy& e, double clock_mhz, int64_t useful_macs = 0);

}  // namespace weft::cost
