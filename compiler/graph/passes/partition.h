// Pass partition: decides, node by node, whether the accelerator or the CPU runs it, by
// estimated cost, and records it in the node's facts (graph.h: device, accel or cpu) with the
// estimates (est_accel_us, est_cpu_us). weft.QConv/QDense go to the accelerator when the
// configuration's conv2d operator can run them (2D, no dilation, a kernel and stride it
// supports, per-channel shifts within 15 of each other: compiler/ops/channel_shifts.h; else the
// node's facts.cpu_reason says why) and its estimate (padded MACs over the GEMM's MACs per cycle
// at the platform clock, plus a launch overhead) beats the CPU's (MACs at an assumed
// `cpu_gmacs` int8 rate); everything else (pools, quantize, layout changes) runs on the CPU.
// Before: fuse_epilogues. After: every live node has facts.device.
#pragma once

#include "compiler/graph/graph.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::graph::passes {

/// The pass; returns the number of nodes put on the accelerator.
int partition(Graph& g, const isa::Layout& layout, const isa::Platform& platform,
              double cpu_gmacs = 20.0);

/// Multiply-accumulates of a node: output elements x the length of each sum (Conv,
/// QLinearConv, Gemm, MatMul and Weft's conv/dense kinds; a rewritten layer's useful MACs from
/// its facts); 0 for the other kinds.
int64_t node_macs(const Graph& g, const Node& n);

}  // namespace weft::compiler::graph::passes
