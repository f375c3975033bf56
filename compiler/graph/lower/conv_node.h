// An accelerator node of the graph (weft.AccelConv, weft.AccelDense) as the conv2d operator's
// problem: the shape from its input and weight types (a dense node is a 1x1 convolution on a
// 1x1 image), the epilogue from its requantization facts (shift, ReLU) and its bias and residual
// inputs, and per-channel shifts split into a common immediate shift and per-lane remainders
// (compiler/ops/channel_shifts.h). Channels that all shift alike need only the immediate shift:
// the per-tensor kernel.
#pragma once

#include <optional>

#include "compiler/graph/graph.h"
#include "compiler/ops/channel_shifts.h"
#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph {

/// What the operator needs to know about a node.
struct ConvNode {
  ops::Conv2dShape shape;
  ops::Conv2dEpilogue epilogue;
  /// Set when the channels shift differently (epilogue.channel_shifts): the per-lane amounts.
  std::optional<ops::ChannelShifts> channel_shifts;
  ValueId bias = kNone, residual = kNone;  // the node's bias and residual inputs, if any
};

/// The node `n` of `g` (AccelConv or AccelDense) for `layout`; UserError naming the node when
/// its per-channel shifts cannot be applied (out of range or spread over more than 15).
ConvNode conv_node(const Graph& g, const Node& n, const isa::Layout& layout);

}  // namespace weft::compiler::graph
