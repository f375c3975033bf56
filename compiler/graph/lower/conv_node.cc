// Graph nodes as conv2d problems; see conv_node.h.
#include "compiler/graph/lower/conv_node.h"

namespace weft::compiler::graph {

ConvNode conv_node(const Graph& g, const Node& n, const isa::Layout& l) {
  ConvNode c;
  const TensorType& x = g.value(n.inputs[0]).type;
  const TensorType& w = g.value(n.inputs[1]).type;
  ops::Conv2dShape& s = c.shape;
  const int64_t slices = n.facts.slices.value_or(1);  // a batched dense: one slice's shape
  s.n = x.shape[0] / slices;
  s.ic = x.shape[1];
  s.oc = w.shape[0] / slices;
  if (n.kind != OpKind::AccelDense) {
    s.h = x.shape[2];
    s.w = x.shape[3];
    s.k = w.shape[2];
    s.stride = n.get_ints("strides", {1, 1})[0];
    s.pad = n.get_ints("pads", {0, 0, 0, 0})[0];
  }
  if (n.inputs.size() > 2) c.bias = n.inputs[2];
  if (n.inputs.size() > 3) c.residual = n.inputs[3];
  ops::Conv2dEpilogue& e = c.epilogue;
  e.shift = static_cast<int>(n.facts.shift.value_or(0));
  if (n.facts.shifts) {
    c.channel_shifts =
        ops::split_channel_shifts(l, *n.facts.shifts, "graph lowering: node '" + n.name + "'");
    if (c.channel_shifts->uniform()) {
      e.shift = c.channel_shifts->common + c.channel_shifts->lane.front();
      c.channel_shifts.reset();
    } else {
      e.shift = c.channel_shifts->common;
      e.channel_shifts = true;
    }
  }
  // No bias input: stem_im2col folded it into the GEMM (constant input channels).
  e.bias = c.bias != kNone;
  e.relu = n.facts.relu.value_or(false);
  e.bias_first = e.bias;
  e.residual = c.residual != kNone;
  return c;
}

}  // namespace weft::compiler::graph
