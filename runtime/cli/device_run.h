// What every `weft run OP` on the accelerator shares: the engine, seed, timeout, timeline and
// progress options; opening the engine and running with progress shown; the timing fields of
// the JSON report (cycles, utilization, roofline, GOPS, per-module stalls); the --save folder.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/device.h"
#include "driver/faults.h"
#include "driver/timeline.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/cli/run_cancel.h"

namespace weft::cli {

struct DeviceRunOptions {
  std::string engine = "cycle", save, trace;
  std::string energy;  // --energy: a shipped energy table's name or a file; "" the default
  uint32_t seed = 1;
  double timeout_s = 3600;
  bool progress = false;
  std::string xclbin, xrt_emulate;  // --engine xrt: a board's .xclbin, or the emulated board
  int xrt_device = 0, xrt_bank = -1;
  const CLI::App* cmd = nullptr;  // the subcommand, to tell given options from defaults
  RunCanceller* canceller = nullptr;  // lets another thread stop the runs (Python's Ctrl-C)

  /// Registers --engine, --save (with `save_help`), --trace, --seed, --timeout, --progress,
  /// --energy, and the xrt engine's --xclbin, --device, --xrt-emulate, --xrt-bank.
  void add_to(CLI::App& cmd, const std::string& save_help);
  /// Before any work: UserError for an unknown engine, a timeline without timing, xrt options
  /// without the xrt engine, a timeout that is not positive, --save or --trace where nothing
  /// can be written, and an --energy table that does not load or an engine that counts nothing.
  void check() const;
  /// check(), then the options a single-operator run uses: with `keep_timeline` (a caller that
  /// wants the timeline in memory, e.g. Python) the engine must be cycle, and the timeline is
  /// recorded even without --trace.
  DeviceRunOptions checked_for_run(bool keep_timeline) const;
};

/// UserError for xrt options given without `--engine xrt` (`engine`), or neither --xclbin nor
/// --xrt-emulate with it.
void check_xrt_options(const CLI::App& cmd, const std::string& engine);

/// The device options of a network run (`weft run resnet18`, `weft run MODEL.onnx --target
/// accel`): the engine, the xrt engine's board or emulation, the time each kernel may take, and
/// AXI faults to inject into the memory system (docs/reliability.md).
struct NetworkDeviceOptions {
  std::string engine = "cycle", xclbin, xrt_emulate, inject_fault;
  std::string energy;  // --energy, as for DeviceRunOptions
  int xrt_device = 0, xrt_bank = -1;
  double timeout_s = 600;
  const CLI::App* cmd = nullptr;

  /// Registers --engine (with `engine_help`), --timeout, --inject-fault, --energy and the xrt
  /// options.
  void add_to(CLI::App& cmd, const std::string& engine_help);
  /// Before any work: UserError for an unknown engine, xrt options without the xrt engine, a
  /// timeout that is not positive, a fault plan that does not parse or has no memory
  /// system to go to, or an --energy table that does not load.
  void check() const;
  /// The options to open the device with; `plan` receives the parsed faults (kept by pointer).
  driver::DeviceOptions device_options(driver::FaultPlan& plan) const;
  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  }
};

/// UserError unless `engine` has a simulated memory system that --inject-fault can reach: cycle,
/// rtl, or xrt with --xrt-emulate (`xrt_emulate` not empty).
void check_fault_engine(const std::string& engine, const std::string& xrt_emulate);

/// Registers --energy (hardware/cost/energy_table.h) into `energy`.
void add_energy_option(CLI::App& cmd, std::string& energy);
/// UserError when the --energy value `energy` does not load, or is given with an engine that
/// counts no activity (functional).
void check_energy_option(const std::string& energy, const std::string& engine);

/// Registers the xrt engine's options (--xclbin, --device, --xrt-emulate, --xrt-bank).
void add_xrt_options(CLI::App& cmd, std::string& xclbin, int& device, std::string& emulate,
                     int& bank);

/// What a device run left: the device's name and details, and the wall time.
struct DeviceRunResult {
  std::string engine;
  nlohmann::ordered_json details;
  double seconds = 0;
};

/// Opens `o.engine` with `bytes` of memory (recording into `trace` when --trace was given) and
/// runs `body` on it with progress shown on stderr as `who`.
DeviceRunResult run_on_device(
    const DeviceRunOptions& o, const isa::Layout& layout, const isa::Platform& platform,
    uint64_t bytes, const std::string& who, driver::Timeline* trace,
    const std::function<void(driver::Device&, std::chrono::milliseconds)>& body);

/// Adds cycles, utilization, the roofline and the fraction of its bound, GOPS at the platform
/// clock for `ops` useful operations, and the per-module stalls, when the engine has timing.
void add_timing(nlohmann::ordered_json& j, const nlohmann::ordered_json& details,
                const nlohmann::ordered_json& roofline, double ops,
                const isa::Platform& platform);

/// Adds the "energy" object (hardware/cost/energy.h) when the engine counted the run's
/// activity (details["activity"]: cycle, rtl): the table `energy` names (--energy) on the
/// configuration's buffers, the average power at the platform's clock, pJ per useful MAC for
/// `useful_macs` (the operator's).
void add_energy(nlohmann::ordered_json& j, const nlohmann::ordered_json& details,
                const std::string& energy, const isa::Layout& layout,
                const isa::Platform& platform, int64_t useful_macs);

/// How an output compares with its reference: the number of differing elements and the index
/// of the first (-1 when equal).
struct Mismatches {
  int64_t count = 0, first = -1;
};
Mismatches compare(const std::vector<int8_t>& out, const std::vector<int8_t>& expect);

/// The --save folder, created; UserError naming it when it cannot be.
std::filesystem::path save_dir(const std::string& dir);

}  // namespace weft::cli
