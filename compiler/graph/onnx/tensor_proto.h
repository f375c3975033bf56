// Conversions between ONNX's protobuf tensors and Weft's TensorData, for the loader's own
// files (onnx_model.cc and the rewrites it runs before the ONNX checker); everything else
// reads the converted Model of onnx_model.h.
#pragma once

#include <string>

#include "compiler/graph/onnx/onnx_model.h"

namespace onnx {
class TensorProto;
}

namespace weft::compiler::onnx_import {

/// `p` as dense little-endian bytes. UserError naming `what` ("initializer 'w' of model.onnx")
/// for an element type Weft does not read, external data, or data that does not match the shape.
TensorData convert_tensor(const onnx::TensorProto& p, const std::string& what);

}  // namespace weft::compiler::onnx_import
