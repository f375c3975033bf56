// Guards run before ONNX shape inference. The libonnx of Debian 12 (1.12) trusts the model it
// infers: it reads past the end of a convolution's input shape when the node has no
// kernel_shape attribute and its weight has more dimensions than its input, it copies a
// tensor's raw bytes into a buffer sized from its shape when the two disagree, and it divides
// by a window's stride whatever its value, and its data propagation reads the type of a
// value that has none, and it builds a shape of millions of dimensions for a ConstantOfShape
// that reads a float image (found by fuzz_onnx, docs/reliability.md). The guards refuse or
// repair such a model first, or run the inference so that it cannot meet one.
#pragma once

#include <map>
#include <string>

namespace onnx {
class GraphProto;
class ModelProto;
}

namespace weft::compiler::onnx_import {

/// Checks, in `g` and its sub-graphs, that the raw bytes of every initializer and tensor
/// attribute (Constant's value, ...) are as many as its shape and element type need, and that
/// the window attributes of convolutions and pools are in range (strides, dilations and
/// kernel_shape positive, pads not negative), and that a ConstantOfShape whose shape is a
/// graph input reads a 1-D int64 tensor of at most 64 values. UserError naming `file`, the
/// node or tensor and the value otherwise.
void check_for_shape_inference(const onnx::GraphProto& g, const std::string& file);

/// Gives every Conv, ConvInteger and QLinearConv node of `g` without a kernel_shape attribute
/// one, from its weight's dimensions (an initializer, a graph input with a known shape, or
/// either through Identity, Cast, QuantizeLinear or DequantizeLinear). UserError naming `file`,
/// the node and the weight when the weight's dimensions are not known before shape inference.
/// The nodes must be in topological order. Returns, by node name, what was set ("kernel_shape
/// [3, 3] from the weight 'w' of shape [8, 4, 3, 3]"), for a shape inference error to explain
/// an attribute the user's file does not have.
std::map<std::string, std::string> pin_conv_kernel_shapes(onnx::GraphProto* g,
                                                          const std::string& file);

/// Runs ONNX shape inference on `proto` in place (types checked; a node's failure is thrown by
/// the library as a std::exception). libonnx 1.12's data propagation of Shape reads its input's
/// type without checking that there is one, and a value has none when its producer failed
/// inference or has no schema (a com.microsoft operator). So a first pass without data
/// propagation, on a copy whose large initializers are typed inputs instead, throws any failure
/// and types every value it can; the model then declares those types (without shapes, which
/// the second pass infers as before); and the second pass propagates data unless a node that
/// propagates data reads a value that still has no type.
void infer_shapes(onnx::ModelProto* proto);

}  // namespace weft::compiler::onnx_import
