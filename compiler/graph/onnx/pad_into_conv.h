// ONNX Pad at import: Weft imports a Pad of zeros on the two spatial axes of an NCHW tensor by
// folding it into the pads of the Conv that reads it (the accelerator and the LLVM kernels
// already pad convolutions), so no Pad node reaches the graph. This file checks a Pad node and
// gives the Conv pads it stands for; the importer does the folding.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// The Conv pads [top, left, bottom, right] that Pad node `n` (of `model`) adds to its input of
/// shape `in_shape`. UserError naming the file and node for a mode other than "constant", a
/// constant value other than 0, pads that are not constant int64, of the wrong length, negative,
/// or on the batch or channel axis, an `axes` input (opset 18), or an input that is not 4-D.
std::vector<int64_t> pad_as_conv_pads(const Model& model, const Node& n,
                                      const std::vector<int64_t>& in_shape);

}  // namespace weft::compiler::onnx_import
