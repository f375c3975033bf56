// ONNX import: a loaded ONNX model (onnx_model.h) to the graph IR (compiler/graph/graph.h).
//
// Supported operators (default domain, opsets 11 to 18): Conv, BatchNormalization (inference),
// Relu, Clip, MaxPool, AveragePool, GlobalAveragePool, Add, Flatten, Reshape, Gemm, MatMul,
// Concat, QuantizeLinear, DequantizeLinear, QLinearConv; Constant nodes become constants.
// ONNX kinds keep ONNX's semantics and attribute names in the IR; the importer only
// normalises: auto_pad becomes explicit pads, defaults are written out, int64 shapes become
// i32 constants, and uint8 tensors are held as int8 shifted by -128 (values and zero points
// alike, so every quantized formula is unchanged; the values listed in `uint8_values` are
// shifted back at the graph's edges). Anything else (another operator or domain, an attribute
// or attribute value Weft does not implement, a non-constant scale or shape) is a UserError
// naming the file, the node, the operator and what is unsupported.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// An imported model.
struct Imported {
  graph::Graph graph;
  int64_t opset = 0;
  /// Values that are uint8 in the ONNX file (held as int8 = uint8 - 128).
  std::set<graph::ValueId> uint8_values;
};

/// Converts a loaded model, first folding its constant sub-graphs (fold_constants.h); runs
/// graph::verify on the result.
Imported import_model(Model model);
/// load_model + import_model.
Imported import_onnx(const std::string& path, const LoadOptions& options = {});

/// The ONNX operators the importer accepts, in the order documented.
const std::vector<std::string>& supported_operators();

}  // namespace weft::compiler::onnx_import
