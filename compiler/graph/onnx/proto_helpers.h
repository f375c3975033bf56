// Helpers over ONNX's protobuf messages for the loader's own files (onnx_model.cc and the
// guards and rewrites it runs before the ONNX checker); everything else reads the converted
// Model of onnx_model.h.
#pragma once

#include <string>

#include "compiler/graph/onnx/onnx_model.h"

namespace onnx {
class AttributeProto;
class NodeProto;
class TensorProto;
}

namespace weft::compiler::onnx_import {

/// `p` as dense little-endian bytes. UserError naming `what` ("initializer 'w' of model.onnx")
/// for an element type Weft does not read, external data, or data that does not match the shape.
TensorData convert_tensor(const onnx::TensorProto& p, const std::string& what);

/// The node's name, or "<op_type>_<index>" when the file gives none.
std::string node_name(const onnx::NodeProto& n, int index);

/// The node's attribute `name`, or null.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);

}  // namespace weft::compiler::onnx_import
