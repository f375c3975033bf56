// Large weights kept out of protobuf's parse of a model. Parsing copies every initializer's raw
// bytes into a string of its own, and the graph copies them again: for a 244 MB model the
// fresh pages of that copy (each faulted in and cleared by the kernel) were most of import.
// This scanner walks the protocol buffer wire format of ModelProto -> graph -> initializer
// without protobuf, leaves the large float and 8-bit initializers out of a copy of the model
// (the skeleton, a few hundred KB), and records where their bytes are in the caller's buffer,
// to be read once from there. Everything else in the file is copied to the skeleton byte for
// byte, so protobuf still parses (and rejects) it as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::compiler::onnx_import {

/// One initializer left out of the skeleton; `data` points into the caller's buffer.
struct SetAsideWeight {
  std::string name;
  int32_t data_type = 0;  // the TensorProto element type
  size_t element_bytes = 0;  // of data_type (4 for float: a view of the bytes must be aligned so)
  std::vector<int64_t> dims;
  const uint8_t* data = nullptr;
  size_t size = 0;  // exactly dims' elements x the element size
};

struct SetAside {
  std::vector<uint8_t> skeleton;  // the model without `weights`, in protobuf's wire format
  std::vector<SetAsideWeight> weights;
};

/// Initializers of at least this many raw bytes are set aside; smaller ones (shapes, axes,
/// scales: what shape inference may read) stay in the skeleton.
constexpr size_t kSetAsideMinBytes = 4096;

/// Splits the model in `size` bytes at `data` into a skeleton and its large weights: the
/// top graph's initializers of element type float, int8 or uint8 with one raw_data field of
/// exactly their shape's size and nothing else holding values. False (and `out` untouched)
/// when none qualifies or the bytes are not well-formed wire format down to the initializers;
/// the caller then parses the bytes as they are, and protobuf names what is wrong.
bool set_aside_weights(const uint8_t* data, size_t size, SetAside* out);

}  // namespace weft::compiler::onnx_import
