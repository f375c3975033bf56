// Lowering a graph's accelerator nodes (weft.AccelConv, weft.AccelDense) to kernels: the conv2d
// operator for the node's shape and epilogue (conv_node.h), knobs from a KnobChooser
// (choose_knobs.h), the program compiled through the accelerator pipeline with the rewrites
// that are legal for this node (compiler/pipeline.h: residual_init where nothing can wrap,
// bias_gemm where the bias pieces fit the lanes, skip_pad_taps), the constants it reads packed
// (kernel_constants.h), its ISA floor and useful MACs. What is left to the runtime is where
// things go in device memory: a kernel names the graph values and the constants it reads by
// the operator's DRAM tensors, and the executor places them (runtime/graph/device_map.h).
//
//   KnobChooser knobs(layout, platform, tune, &source);
//   AccelLowering lower(layout, platform, {}, knobs);
//   AccelKernel k = lower.lower(graph, node_id);      // k.program, k.operands, k.constants
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/accel/program.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/lower/choose_knobs.h"
#include "compiler/graph/lower/conv_node.h"
#include "compiler/graph/lower/kernel_constants.h"
#include "compiler/graph/lower/program_cache.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_floor.h"
#include "compiler/pipeline.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::graph {

/// A graph value a kernel reads or writes, by the operator's DRAM tensor for it.
struct KernelOperand {
  ir::Buffer buffer;
  ValueId value = kNone;
  int elem_bytes = 1;  // the unit of its memory type's DRAM addresses
  int64_t slice_bytes = 0;  // a batched dense: bytes from one slice of the value to the next
};

/// An accelerator node lowered to a kernel.
struct AccelKernel {
  NodeId node = kNone;
  ops::Conv2d op;                         // shape, knobs, epilogue, tensors
  accel::Program program;                 // with tokens, ready to place
  std::string schedule_source;            // where the knobs came from (KnobChoice::source)
  std::vector<std::string> rewrites;      // the program rewrites applied, in order
  ops::Conv2dFloor floor;                 // the ISA floor of the layer and epilogue
  int64_t macs = 0;                       // useful MACs (of every slice)
  int64_t slices = 1;                     // a batched dense (facts.def): `program` runs once
                                          // per slice, on each slice of the operands, in one
                                          // launch (floor: of every slice)
  std::vector<KernelOperand> operands;    // input, weight, output, residual
  std::vector<KernelConstant> constants;  // bias, shifts, bias_gemm's weights and constants
};

/// Which program rewrites a lowering may apply (each only where its legality check allows).
struct LowerOptions {
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

/// Lowers nodes one at a time with one chooser (whose memory serves them all). Nodes that
/// compile to the same program (shape, knobs, epilogue and the rewrites that apply; ResNet-50
/// repeats most of its 54 layers) run the pipeline once: the others take its program with
/// their own DRAM tensors and constants. With a ProgramCache (program_cache.h) a program
/// compiled by an earlier run is taken from it, and a new one stored in it.
class AccelLowering {
 public:
  AccelLowering(const isa::Layout& layout, const isa::Platform& platform, LowerOptions options,
                KnobChooser& knobs, ProgramCache* cache = nullptr);
  /// The rewrites the pipeline may run for node `c` (named `name`) built as `op`, with the
  /// operands their legality checks need; the constants they read are added to `constants`.
  PipelineOptions rewrites(const Graph& g, const ConvNode& c, const std::string& name,
                           const ops::Conv2d& op, std::vector<KernelConstant>* constants) const;
  /// Lowers node `id`; the observers see the pipeline's passes and program steps.
  /// UserError naming the node when it cannot be scheduled on the configuration.
  AccelKernel lower(const Graph& g, NodeId id, const PassObserver& after_pass = {},
                    const ProgramObserver& after_step = {});

 private:
  // A compiled program and the DRAM tensors it names, in roles' order (program_roles).
  struct Compiled {
    accel::Program program;
    std::vector<std::string> rewrites;
    std::vector<ir::Buffer> roles;
  };
  const isa::Layout& layout_;
  const isa::Platform& platform_;
  LowerOptions options_;
  KnobChooser& knobs_;
  ProgramCache* cache_;
  std::map<std::string, Compiled> programs_;  // by program_key
  int64_t reused_ = 0, cached_ = 0;

 public:
  /// Nodes so far whose program came from an earlier node's / from the ProgramCache.
  int64_t programs_reused() const { return reused_; }
  int64_t programs_cached() const { return cached_; }
};

}  // namespace weft::compiler::graph
