// Imported QDQ models (QuantizeLinear / DequantizeLinear around float operators, and
// QLinearConv) onto Weft's power-of-two int8 path: the Q/DQ pairs are removed, leaving the
// float network with the dequantized weights, and each quantized value's scale is kept as a
// fixed exponent for the quantizer (QuantizeOptions::fixed_exponents), which then makes the
// same int8 tensors ONNX's QuantizeLinear makes and requantizes with the accelerator's
// shift/add/clip epilogue. QLinearConv becomes Conv on the dequantized input and weights (bias
// at scale x_scale * w_scale) with its output's scale fixed.
//
// What maps exactly and where rounding can differ from ONNX (docs/onnx.md):
//  - a power-of-two scale with zero point 0 keeps its grid: activations are quantized with
//    ONNX's rounding (half to even, saturating), weights are the file's int8 values (a weight
//    of -128 becomes -127: Weft's weights are symmetric), biases are exact;
//  - requantization after a conv/dense/add/average pool rounds half up (the epilogue's
//    rounding term) where ONNX rounds half to even: the two differ by 1 LSB, and only when the
//    exact result lies halfway between two int8 values;
//  - any other scale s is replaced by 2^round(log2 s) (a grid up to sqrt(2) finer or coarser,
//    reported per value); a nonzero zero point (uint8 or asymmetric int8) is a UserError.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::onnx_import {

/// A scale the mapping had to change.
struct ScaleChange {
  std::string value;
  double onnx_scale = 0;
  int exponent = 0;  // the power of two used
};

/// The float graph and the fixed exponents, by value name.
struct QdqMapping {
  graph::Graph graph;
  std::map<std::string, int> exponents;
  std::vector<ScaleChange> changed;
  /// Some weight had per-axis (per-output-channel) scales: quantize weights per channel so the
  /// rows keep their own grids (each then requantizes with its own shift on the accelerator).
  bool per_channel_weights = false;
};

/// True when the graph has QuantizeLinear, DequantizeLinear or QLinearConv nodes.
bool has_qdq(const graph::Graph& g);

/// Maps an imported QDQ graph; UserError naming the node for what cannot be mapped.
QdqMapping map_qdq(const graph::Graph& g);

}  // namespace weft::compiler::onnx_import
