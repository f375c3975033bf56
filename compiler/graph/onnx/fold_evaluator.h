// The shared part of import-time constant folding (fold_constants.h): one node's constant
// inputs, its attributes, named errors, and the tensor helpers (a blank result, element copies
// and stores, NumPy broadcasting) that each file of folders (fold_constants.cc for the shape
// sub-graphs, fold_mask_ops.cc for masks and scatters) builds on.
#pragma once

#include <string>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"

namespace weft::compiler::onnx_import {

/// A folded result may hold at most this many elements (a named error past it).
constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

/// Integer arithmetic wraps around in two's complement, as ONNX runtimes (and NumPy) compute
/// it; signed overflow would be undefined behaviour.
int64_t wrap_add(int64_t x, int64_t y);
int64_t wrap_sub(int64_t x, int64_t y);
int64_t wrap_mul(int64_t x, int64_t y);

/// One node being folded: `in[i]` is input i's value, null for an omitted optional input.
class FoldEvaluator {
 public:
  FoldEvaluator(const Model& m, const Node& n, const std::vector<const TensorData*>& in)
      : m_(m), n_(n), in_(in) {}

  const Node& node() const { return n_; }
  /// UserError naming the file and node.
  [[noreturn]] void fail(const std::string& what) const;
  const TensorData& input(size_t i) const;
  bool has(size_t i) const { return i < in_.size() && in_[i]; }
  int64_t int_attr(const std::string& name, int64_t dflt) const;
  /// A 1-D (or scalar) int64/int32 input as a list.
  std::vector<int64_t> int_list(size_t i, const std::string& what) const;
  /// Integer input `i` of any shape, flattened.
  std::vector<int64_t> int_list_any(size_t i) const;
  /// `axis` made non-negative against `rank`, or a named error.
  int64_t norm_axis(int64_t axis, int64_t rank) const;
  /// A zero-filled tensor; a named error for a negative dimension or over 2^24 elements.
  TensorData blank(ElemType type, std::vector<int64_t> shape) const;
  static void copy_elem(const TensorData& src, int64_t si, TensorData* dst, int64_t di);
  /// Stores `iv` (integer and bool types) or `dv` (float32) at element i.
  static void put(TensorData* t, int64_t i, int64_t iv, double dv);
  /// NumPy broadcasting of the shapes; a named error when they do not broadcast.
  std::vector<int64_t> broadcast_shape(const std::vector<std::vector<int64_t>>& shapes) const;
  /// The element of a tensor of shape `in` that broadcasts to element `flat` of shape `out`.
  static int64_t source_index(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                              int64_t flat);

 protected:
  const Model& m_;
  const Node& n_;
  const std::vector<const TensorData*>& in_;
};

}  // namespace weft::compiler::onnx_import
