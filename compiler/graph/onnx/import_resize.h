// Importing ONNX Resize (opsets 11 to 18) as the graph's Resize (compiler/graph/resize.h): its
// scales or sizes, which must be constants, become the attributes 'scales' (one per axis, the
// scale the coordinate transformation divides by) and 'sizes' (the output shape). Modes outside
// nearest and linear, the coordinate transformations resize.h lists, and the opset-18 options
// (antialias, axes, keep_aspect_ratio_policy other than stretch) are named errors.
#pragma once

#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// The attributes of Resize node `n` of model `m` reading an input of shape `in`. UserError
/// naming the file and node for an unsupported mode or a scale or size that is not constant.
graph::Attrs resize_attrs(const Model& m, const Node& n, const std::vector<int64_t>& in);

}  // namespace weft::compiler::onnx_import
