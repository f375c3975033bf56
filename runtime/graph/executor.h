// The graph executor: a compiled network (compiler/graph/pipeline.h) becomes a static list of
// steps (accelerator kernel launches, CPU kernels, copies into and out of the device arena)
// that runs unchanged on every engine behind driver::Device (functional, cycle, rtl, and
// later xrt). Device memory holds, from address 0: every kernel's instructions and micro-ops,
// the weights and biases packed once, then the activation arena of the memory plan; the host
// arena holds the CPU's values. One report per run (per node: engine, cycles or host time,
// MACs, utilization, share of the total) and one Chrome-trace/Perfetto timeline of the whole
// network (accelerator and CPU on their own tracks).
//
// The library API (what `weft run resnet18` and `weft run MODEL.onnx --target accel` call):
//
//   isa::Layout layout = isa::layout_for("vta");
//   const isa::Platform& pf = isa::find_platform("sim");
//   compiler::graph::CompiledGraph c = compiler::graph::compile_graph(g, layout, pf, {});
//   rt::graph::GraphExecutor exe(c, layout, pf);           // compiles every kernel once
//   auto dev = rt::graph::open_graph_device("cycle", exe);   // or driver::open_device(...)
//   rt::graph::RunResult r = exe.run(*dev, {input_f32});     // plain fp32 inputs
//   r.outputs[0];            // the first output as float (dequantized)
//   r.report.to_json();      // the report; r.report.table() for people
//   r.report.timeline();     // Perfetto JSON
//
// or in one call: run_network(graph, "vta", "cycle", inputs).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/accel/program.h"
#include "compiler/graph/pipeline.h"
#include "driver/device.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::rt::graph {

/// One executed step.
struct StepReport {
  std::string node, op, engine, detail;  // engine: "accel", "llvm" (a JIT kernel) or "cpu"
  std::string schedule_source;           // accelerator steps: where the knobs came from
  uint64_t cycles = 0;                   // accelerator steps
  double seconds = 0;                    // accelerator: cycles at the clock; CPU: host time
  int64_t macs = 0;
  double utilization = 0;                // MACs / (cycles x MACs per cycle)
  double share = 0;                      // of the total time
  double start_us = 0;                   // on the network's timeline
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
  /// Accelerator utilization over its cycles: accel_macs / (cycles x peak).
  double utilization() const;
  nlohmann::ordered_json to_json() const;
  std::string table() const;
  /// Chrome trace / Perfetto JSON: one event per step on an accelerator or CPU track.
  nlohmann::json timeline() const;
};

/// The outputs (plain, float: int8 outputs as integers, dequantized ones as reals) and report.
struct RunResult {
  std::vector<std::vector<float>> outputs;
  RunReport report;
};

/// How kernels are scheduled.
struct ExecutorOptions {
  /// Exact tilings measured on the cycle model per layer shape, the fastest kept; 1 takes the
  /// analytic chooser's first (no measuring).
  size_t tune_candidates = 1;
  /// With tune_candidates > 1: a JSON file remembering the measured choices across runs
  /// ("" for none); default_graph_knob_cache() is the usual place.
  std::string knob_cache;
  /// Conv2d schedules from the tuning records first (recorded_knobs.h): `tune_db` when it has
  /// the layer, else the shipped records; a layer without a usable record falls back to the
  /// above. The per-node report names each schedule's source.
  bool use_records = true;
  std::string tune_db;
  /// CPU nodes run JIT kernels of the LLVM backend (llvm_kernels.h) where one exists, else the
  /// plain loops of cpu_kernels.h (false: the plain loops everywhere, e.g. to compare).
  bool llvm_kernels = true;
  /// Fused residuals loaded as the accumulator's initial value and shifted left instead of a
  /// reset and a register ADD (compiler/passes/residual_init.h), where nothing can wrap.
  bool residual_init = true;
  /// The bias added by a GEMM against a constant input block instead of a LOAD ACC and a
  /// register ADD (compiler/passes/bias_gemm.h), where its pieces fit the lanes.
  bool bias_gemm = true;
  /// GEMM micro-ops that read only zero padding dropped (compiler/passes/skip_pad_taps.h)
  /// where the resulting kernels fit the micro-op buffer together.
  bool skip_pad_taps = true;
};

/// $XDG_CACHE_HOME/weft/graph_conv2d_knobs.json (or ~/.cache/...); "" without a home.
std::string default_graph_knob_cache();

/// A compiled network ready to run on devices of one configuration.
class GraphExecutor {
 public:
  /// Compiles every accelerator kernel and packs the constants (once). UserError when a kernel
  /// cannot be scheduled on the configuration.
  GraphExecutor(const compiler::graph::CompiledGraph& compiled, const isa::Layout& layout,
                const isa::Platform& platform, const ExecutorOptions& options = {});
  ~GraphExecutor();
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  /// Device memory the network needs (programs, weights, arena).
  uint64_t device_bytes() const;
  /// Runs on `dev` (opened with at least device_bytes()). `inputs`: one plain fp32 tensor per
  /// graph input. UserError for a wrong input size, or for a device error (an AXI fault, a
  /// kernel past `timeout`, a cancel) naming the node where the run stopped and the cause.
  RunResult run(driver::Device& dev, const std::vector<std::vector<float>>& inputs,
                std::chrono::milliseconds timeout = std::chrono::minutes(10));
  /// Stops the run in progress from another thread, as a host cancels: the kernel on the device
  /// is aborted and no later step starts; run() then throws a UserError naming the node. No
  /// effect when no run is in progress.
  void cancel();
  /// Seconds spent compiling kernels in the constructor.
  double kernel_compile_seconds() const;
  const compiler::graph::Graph& graph() const;
  /// A listing of the static step list (one line per step).
  std::string listing() const;

 private:
  RunResult run_steps(driver::Device& dev, const std::vector<std::vector<float>>& inputs,
                      std::chrono::milliseconds timeout);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Opens `engine` ("functional", "cycle", "rtl", "xrt", ...) with the memory `exe` needs and
/// the rest of `base` (the xrt engine's board or emulation, faults to inject).
std::unique_ptr<driver::Device> open_graph_device(const std::string& engine,
                                                  const GraphExecutor& exe,
                                                  const isa::Layout& layout,
                                                  const isa::Platform& platform,
                                                  const driver::DeviceOptions& base = {});

/// Everything in one call: compile for `config`, run on `engine` with `inputs`.
RunResult run_network(const compiler::graph::Graph& g, const std::string& config,
                      const std::string& engine, const std::vector<std::vector<float>>& inputs,
                      const compiler::graph::GraphCompileOptions& options = {},
                      const std::string& platform = "sim");

}  // namespace weft::rt::graph
