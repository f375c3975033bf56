// Running a graph of ONNX operators (as imported, before Weft's quantizer and passes) on the
// host, both paths through compiler/graph's host interpreter (interpret.h): on the LLVM CPU
// backend in float32 (Interpreter<float> with JIT-compiled kernels of runtime/cpu for Conv, Gemm
// and MatMul and llvm_kernels.h's graph kernels for the element-wise operators, pools, batch
// norm, Softmax, LayerNormalization, Transpose, Slice, ReduceMean and Resize), and as the
// float64 reference (Interpreter<double> with its plain loops). Quantized
// ONNX operators (QuantizeLinear, DequantizeLinear, QLinearConv) run with ONNX's arithmetic
// (round half to even, saturation) on int8 values. Weft's own operator kinds (after
// quantization and fusion) are the accelerator executor's, not these.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "runtime/graph/host_array.h"

namespace weft::rt::graph {

/// What one node did in a run.
struct NodeRecord {
  std::string name, op;
  std::string engine;   // "llvm" (a JIT-compiled kernel), "host" (a plain kernel) or "fused"
                        // (an Add, Relu or Clip done in the convolution before it)
  double start = 0;     // seconds from the start of the run
  double seconds = 0;   // host time
  double macs = 0;      // multiply-accumulates (conv, gemm, matmul)
};

/// One run's outputs (in the graph's output order) and per-node records (in run order).
struct GraphRun {
  std::vector<HostArray> outputs;
  std::vector<NodeRecord> nodes;
  double seconds = 0;
};

/// The run's per-node records as `weft run MODEL.onnx --target llvm` reports them ("per_node":
/// name, op, engine, us, start_us, share of the run, macs).
nlohmann::ordered_json per_node_json(const GraphRun& run);

/// The float64 reference interpreter. UserError naming the input whose count, dtype or shape
/// differs from the graph's.
GraphRun run_reference_f64(const compiler::graph::Graph& g, const std::vector<HostArray>& inputs);

/// The fp32 path on the LLVM CPU backend. Kernels are compiled on first use of a shape and
/// constant weights packed once per node; later runs reuse both, and the storage of every
/// value of the run before (the runner holds the network's activations between runs).
class LlvmGraphRunner {
 public:
  /// `threads`: the thread pool the JIT kernels' parallel loops use.
  explicit LlvmGraphRunner(const compiler::graph::Graph& g, int threads = 1);
  ~LlvmGraphRunner();
  LlvmGraphRunner(const LlvmGraphRunner&) = delete;
  LlvmGraphRunner& operator=(const LlvmGraphRunner&) = delete;

  /// UserError naming the next node when cancel() came during the run.
  GraphRun run(const std::vector<HostArray>& inputs);
  /// Stops the run in progress from another thread (the Python package's Ctrl-C) before its
  /// next node; the node in flight finishes first. A run that starts later is not affected.
  void cancel() { cancelled_ = true; }
  /// Seconds spent JIT-compiling so far, and the number of distinct kernels compiled.
  double compile_seconds() const;
  int kernels_compiled() const;

  struct State;

 private:
  const compiler::graph::Graph& g_;
  std::unique_ptr<State> state_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace weft::rt::graph
