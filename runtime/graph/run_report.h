// The report of one network run (runtime/graph/executor.h): per step its engine, cycles or
// host time, MACs, utilization and share of the total, for accelerator steps the roofline
// (GEMM micro-ops, DRAM bytes, the limit that holds the layer back) and the ISA floor; the
// totals; with add_energy, each accelerator step's energy and the network's; as JSON, as a
// table for people, and as a Chrome-trace / Perfetto timeline (the
// accelerator and the CPU on their own tracks).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hardware/cost/energy.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/common/activity.h"

namespace weft::rt::graph {

/// One executed step.
struct StepReport {
  std::string node, op, engine, detail;  // engine: "accel", "llvm" (a JIT kernel) or "cpu"
  std::string schedule_source;           // accelerator steps: where the knobs came from
  uint64_t cycles = 0;                   // accelerator steps
  double seconds = 0;                    // accelerator: cycles at the clock; CPU: host time
  int64_t macs = 0;
  double utilization = 0;  // MACs / (cycles x MACs per cycle)
  double share = 0;        // of the total time
  double start_us = 0;     // on the network's timeline
  // Roofline of an accelerator step (engines with timing): GEMM micro-op cycles (padding
  // included), DRAM bytes and the cycles they take on the bus, the useful-MAC bound, and the
  // limit that stops the layer short of it ("compute", "padding", "memory", "overlap").
  uint64_t gemm_uops = 0, dram_bytes = 0;
  double memory_cycles = 0, mac_bound_cycles = 0;
  std::string limit;
  // The ISA floor (compiler/ops/conv2d_floor.h): the fewest cycles any program for this layer
  // and epilogue can take on the configuration (and the same for a program that runs every
  // tap, padding included), and the compute module's counters of the run, which say where the
  // cycles above it went.
  int64_t isa_floor_cycles = 0, isa_floor_all_taps_cycles = 0;
  nlohmann::ordered_json compute;
  // What the step did to the hardware (engines that count it: cycle, rtl), and its energy
  // once add_energy has priced it.
  bool has_activity = false, has_energy = false;
  sim::Activity activity;
  cost::Energy energy;
};

/// The report of one run.
struct RunReport {
  std::string network, config, platform, engine;
  std::vector<StepReport> steps;
  uint64_t accel_cycles = 0;
  double accel_seconds = 0, cpu_seconds = 0, total_seconds = 0, wall_seconds = 0;
  int64_t macs = 0, accel_macs = 0;
  double macs_per_cycle = 0;  // the GEMM's peak
  int64_t device_arena = 0, host_arena = 0, weight_bytes = 0;
  /// The largest host buffer a copy between the arenas used (packed_io.h: a slice at a time).
  int64_t staging_bytes = 0;
  /// The accelerator steps' energy, added (add_energy), with the table and clock it used.
  bool has_energy = false;
  cost::Energy energy;
  cost::EnergyTable energy_table;
  double clock_mhz = 0;
  /// Accelerator utilization over its cycles: accel_macs / (cycles x peak).
  double utilization() const;
  nlohmann::ordered_json to_json() const;
  std::string table() const;
  /// Chrome trace / Perfetto JSON: one event per step on an accelerator or CPU track, its times
  /// in microseconds (marked so for the renderer, driver::render_timeline_svg).
  nlohmann::json timeline() const;
};

/// Fills an accelerator step's counters from the device's run details (dev.run_details()):
/// the compute module's counters, and on engines with timing the roofline and its limit.
/// `cycles` and `macs` are the step's.
void add_run_details(StepReport& step, const nlohmann::ordered_json& details,
                     const isa::Layout& layout, const isa::Platform& platform);

/// Prices every accelerator step's activity with `table` on configuration `layout` (its
/// buffers) and adds it up, with power at `platform`'s clock: to_json then has an "energy" per
/// such node and for the network, and table() an energy column and line. No effect on a run
/// whose engine counted no activity (functional).
void add_energy(RunReport& report, const cost::EnergyTable& table, const isa::Layout& layout,
                const isa::Platform& platform);

}  // namespace weft::rt::graph
