// Type inference for every operator kind: the output types a node's inputs, attributes and
// facts (graph.h) imply (shape, dtype, layout, quantization). Builders use it (Graph::add_op), the
// verifier checks every node's stored output types against it, and importers call it after ONNX's
// own shape inference as a cross-check.
//
// Conventions the inference fixes for Weft's own kinds (see ops.def):
//   QConv/AccelConv/QDense/AccelDense/Requantize/Quantize and int8 pools/Add: the output is
//   int8, per tensor, at the scale in attribute "out_scale" (a power of two after Weft's
//   quantizer); conv attributes use ONNX's names (strides, pads [t,l,b,r], dilations).
//   Pack: facts pack_n, pack_c (block sizes); Unpack: back to plain (a window of rows with
//   facts y0, out_h); a packed output of a CPU node or kernel: facts layout_n, layout_c.
#pragma once

#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Output types of `node` in graph `g` (its inputs must exist in g). UserError naming the
/// node, its operator and what does not fit.
std::vector<TensorType> infer_output_types(const Graph& g, const Node& node);

/// The largest stride, dilation, pad or kernel side a window operator accepts (far beyond any
/// network's), so that window arithmetic cannot overflow.
inline constexpr int64_t kMaxWindowAttribute = int64_t{1} << 20;

/// Output spatial size of a window: floor((in + pad_a + pad_b - dil*(k-1) - 1)/stride) + 1
/// (ceil when `ceil_mode`).
int64_t window_out(int64_t in, int64_t k, int64_t stride, int64_t pad_a, int64_t pad_b,
                   int64_t dilation, bool ceil_mode);

}  // namespace weft::compiler::graph
