// The graph executor: a compiled network (compiler/graph/pipeline.h) becomes a static list of
// steps (accelerator kernel launches, CPU kernels, copies into and out of the device arena)
// that runs unchanged on every engine behind driver::Device (functional, cycle, rtl, and
// later xrt). The accelerator kernels come from the compiler (compiler/graph/lower: each node
// lowered once, knobs through the runtime's TunedKnobs, runtime/tune/tuned_knobs.h); the
// executor keeps where things live (device_map.h: the weights, the kernels' constants, the
// activation arena of the memory plan, every kernel's instructions and micro-ops; the host
// arena holds the CPU's values), the run loop (executor_run.cc) and one report per run
// (run_report.h: per node engine, cycles or host time, MACs, utilization, share of the total,
// and one Chrome-trace/Perfetto timeline of the whole network).
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
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/lower/accel_kernel.h"
#include "compiler/graph/pipeline.h"
#include "driver/device.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/graph/run_report.h"

namespace weft::rt::graph {

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
  /// Conv2d schedules from the tuning records first (runtime/tune/tuned_knobs.h): `tune_db`
  /// when it has the layer, else the shipped records; a layer without a usable record falls
  /// back to the above. The per-node report names each schedule's source.
  bool use_records = true;
  std::string tune_db;
  /// CPU nodes run JIT kernels of the LLVM backend (llvm_kernels.h) where one exists, else the
  /// plain loops of cpu_kernels.h (false: the plain loops everywhere, e.g. to compare).
  bool llvm_kernels = true;
  /// The program rewrites of the accelerator pipeline (compiler/graph/lower/accel_kernel.h:
  /// LowerOptions), each applied where its legality check allows.
  bool residual_init = true;
  bool bias_gemm = true;
  bool skip_pad_taps = true;
  /// A folder of compiled accelerator programs kept across runs (program_cache.h;
  /// default_program_cache_dir() is the usual place), "" for none.
  std::string program_cache;
};

/// Where an executor's accelerator programs came from.
struct ProgramSources {
  int64_t compiled = 0;  // by the accelerator pipeline
  int64_t reused = 0;    // an earlier node's of this network (the same program)
  int64_t cached = 0;    // the program cache (an earlier run's)
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
  /// How many accelerator kernels were compiled, reused within the network or cached.
  ProgramSources program_sources() const;
  const compiler::graph::Graph& graph() const;
  /// A listing of the static step list (one line per step).
  std::string listing() const;
  /// The instructions of accelerator node `node` as placed in device memory, with its schedule
  /// and the rewrites applied. UserError when there is no such node.
  std::string kernel_listing(const std::string& node) const;

 private:
  RunResult run_steps(driver::Device& dev, const std::vector<std::vector<float>>& inputs,
                      std::chrono::milliseconds timeout);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The accelerator node named `node` of `c` lowered as GraphExecutor lowers it (the same knob
/// source and rewrites); the observers see the accelerator pipeline's passes and program steps.
/// UserError when there is no such node.
compiler::graph::AccelKernel lower_node(const compiler::graph::CompiledGraph& c,
                                        const std::string& node, const isa::Layout& layout,
                                        const isa::Platform& platform,
                                        const ExecutorOptions& options = {},
                                        const compiler::PassObserver& after_pass = {},
                                        const compiler::ProgramObserver& after_step = {});

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
