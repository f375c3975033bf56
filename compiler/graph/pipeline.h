// The graph pipeline, in one readable place (each pass is its own file under passes/, each
// followed by the verifier):
//
//   fold_batch_norm  fp32: batch norms into the convolutions before them
//   quantize         fp32 -> int8 with power-of-two scales, calibrated (quantize.h)
//   fuse_epilogues   conv/dense + bias + residual add + ReLU + requantization -> one kernel
//   stem_im2col      a few-channel stem (conv1) as im2col (in row bands) + 1x1 convs whose
//                    gathered taps fill the GEMM's input lanes densely
//   stem_space_to_depth  a few-channel stride-2 stem (conv1) as space-to-depth + a conv
//                    that fills the GEMM's input lanes
//   partition        accelerator or CPU, per node, by estimated cost
//   pack_layouts     the accelerator's packed layouts; Pack/Unpack only at region edges;
//                    weights packed once
//   band_pool        a max pool after a layer's row bands runs in the same bands (a halo of
//                    rows from the band before), so the joined layer output never exists
//   fold_packs       CPU nodes that only feed a Pack (the stem's im2col bands, the max pool)
//                    write the packed layout into the device arena themselves
//   plan_memory      liveness; one arena per device; weight region; a Concat of unpacked
//                    accelerator outputs is unpacked into in place
//
// Graphs that are already int8 (an imported QDQ model mapped onto weft.QConv etc.) skip
// fold_batch_norm and quantize. With `accelerator` off the pipeline stops after quantize's
// fusion and partitions everything to the CPU.
//
// Usage (what `weft compile MODEL --emit graph` and the executor do):
//   CompiledGraph c = compile_graph(graph, layout, platform, options,
//                                   [](const std::string& pass, const Graph& g) { ... });
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/passes/plan_memory.h"
#include "compiler/graph/quantize.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::graph {

/// Options of the whole pipeline.
struct GraphCompileOptions {
  QuantizeOptions quantize;
  bool accelerator = true;  // false: everything on the CPU
  double cpu_gmacs = 20.0;  // the partition's CPU estimate
};

/// The result: the final graph, its memory plan, the fp32 graph after folding (for
/// comparisons) and the wall time each pass took.
struct CompiledGraph {
  Graph graph;
  Graph folded_f32;
  passes::MemoryPlan plan;
  std::vector<std::pair<std::string, double>> pass_seconds;      // wall time of each pass
  std::vector<std::pair<std::string, double>> pass_cpu_seconds;  // its process CPU time
};

/// Called after each pass with its name and result.
using GraphObserver = std::function<void(const std::string& pass, const Graph& g)>;

/// The pass names in order ("import" is the graph as given).
const std::vector<std::string>& graph_pass_names();

/// Runs the pipeline. UserError for what the user's graph cannot do (naming the node).
CompiledGraph compile_graph(const Graph& g, const isa::Layout& layout,
                            const isa::Platform& platform, const GraphCompileOptions& options,
                            const GraphObserver& after_pass = {});

/// True when `g` is already quantized (has weft.Quantize/QConv/QDense nodes).
bool is_quantized(const Graph& g);

}  // namespace weft::compiler::graph
