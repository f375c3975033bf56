// Loading an ONNX model with the ONNX library (libonnx + protobuf; a wire-format scanner only
// finds where the large weights' bytes are, set_aside_weights.h): parse, check with onnx::checker, run onnx::shape_inference, check that the
// default-domain opset is one Weft imports (11 to 18; opset 18 read through opset18.h), and hand back the graph as plain C++
// values (nodes with typed attributes, initializers as TensorData, every value's inferred type),
// so no other file needs the ONNX or protobuf headers. Every problem with the file is a
// UserError that names the file and, where there is one, the node and operator.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph/bytes.h"

namespace weft::compiler::onnx_import {

/// The element types Weft reads from ONNX tensors.
enum class ElemType { kFloat32, kInt8, kUint8, kInt32, kInt64, kBool };
/// "float32", "int8", "uint8", "int32", "int64", "bool".
const char* elem_type_name(ElemType t);
/// Bytes of one element.
int elem_bytes(ElemType t);

/// A dense, C-order tensor: shape and little-endian element bytes (a large weight's are a
/// view of the mapped model file where aligned for its elements).
struct TensorData {
  ElemType type = ElemType::kFloat32;
  std::vector<int64_t> shape;
  graph::Bytes bytes;

  int64_t elements() const;
  /// The values widened to double / to int64 (any element type).
  std::vector<double> to_double() const;
  std::vector<int64_t> to_int64() const;
  /// A float32 tensor of these values.
  static TensorData from_float(std::vector<int64_t> shape, const std::vector<float>& v);
};

/// "[1, 3, 224, 224]".
std::string shape_string(const std::vector<int64_t>& shape);

/// An ONNX element type's name ("FLOAT16"), or "type N" for a number ONNX does not define.
std::string onnx_type_name(int32_t onnx_type);

/// One attribute of a node (the kinds the supported operators use).
struct Attribute {
  enum class Kind { kInt, kFloat, kInts, kFloats, kString, kTensor, kOther } kind = Kind::kOther;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string s;
  TensorData t;
};

/// One node, in the file's (topological, as the ONNX checker requires) order.
struct Node {
  std::string name;    // the node's name, or "<op>_<index>" when the file gives none
  std::string op;      // op_type
  std::string domain;  // "" for the default domain
  std::vector<std::string> inputs, outputs;  // "" marks an omitted optional input
  std::map<std::string, Attribute> attrs;

  /// "node 'conv1' (Conv)", for messages.
  std::string where() const;
};

/// A value's type: element type and shape (-1 for a dimension shape inference left unknown).
struct ValueType {
  ElemType type = ElemType::kFloat32;
  std::vector<int64_t> shape;
  bool has_shape = false;
};

/// A loaded model.
struct Model {
  std::string path;     // for messages
  int64_t opset = 0;    // the default domain's opset version
  std::vector<std::string> inputs;   // graph inputs that are not initializers, in order
  std::vector<std::string> outputs;  // graph outputs, in order
  std::map<std::string, TensorData> initializers;  // and Constant nodes' values
  std::map<std::string, ValueType> types;          // every value shape inference typed
  std::vector<Node> nodes;
};

/// Options of load_model.
struct LoadOptions {
  /// Accepted default-domain opsets.
  int64_t min_opset = 11, max_opset = 18;
  /// Graph inputs turned into initializers with these values (ONNX node tests feed weights
  /// as graph inputs; Weft's graphs take them as constants).
  std::map<std::string, TensorData> bind;
  /// Accept a model below min_opset when every operator it uses is defined identically at
  /// min_opset (no newer version in between), reading it as min_opset (ONNX's node tests of
  /// GlobalAveragePool and QLinearConv are at opsets 1 and 10).
  bool lift_old_opset = false;
  /// > 0: the first dimension of every graph input whose first dimension is symbolic (a
  /// dim_param or unset) becomes this before shape inference (`weft run MODEL.onnx --batch N`);
  /// an input whose first dimension is fixed at another size is a UserError naming it.
  int64_t batch = 0;
};

/// Reads, checks, shape-infers and converts the model in `path`. UserError naming the file
/// for an unreadable, truncated or corrupt file, an opset outside the accepted range, a
/// tensor type Weft does not read, or a graph the ONNX checker rejects (including a cycle or
/// a value used before it is defined).
Model load_model(const std::string& path, const LoadOptions& options = {});
/// The same from bytes already in memory; `what` names them in messages.
Model parse_model(const std::vector<uint8_t>& bytes, const std::string& what,
                  const LoadOptions& options = {});
/// The same from `size` bytes at `data` (a mapped file). With an `owner` that keeps the bytes
/// alive, the large weights' TensorData are views of them; else copies.
Model parse_model(const uint8_t* data, size_t size, const std::string& what,
                  const LoadOptions& options = {}, std::shared_ptr<const void> owner = nullptr);

/// Reads a serialized TensorProto (the input_N.pb / output_N.pb files of ONNX's node tests).
TensorData read_tensor_file(const std::string& path);

/// The newest version of operator `op` (default domain) at or below `opset`; 0 when the ONNX
/// library has none. Two opsets with the same version define the operator identically.
int64_t op_since_version(const std::string& op, int64_t opset);

}  // namespace weft::compiler::onnx_import
