// ONNX Slice and Gather on a computed tensor, as the element ranges of graph Slice nodes
// (compiler/graph/ops.def: one axis, [start, end)). Exporters write them on activations for
// torch's chunk (a fused QKV projection split into Q, K and V) and for indexing (`x[:, 0]`, a
// transformer's class token). Constant inputs never reach this: fold_constants evaluates them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::compiler::onnx_import {

struct AxisRange {
  int64_t axis = 0, start = 0, end = 0, step = 1;
};

/// The axes a Slice (opset 10+: starts, ends[, axes[, steps]]) of a tensor of `shape` cuts,
/// with its starts and ends clamped as ONNX clamps them; axes it leaves whole are not listed.
/// Returns "" or what is wrong (a step below 1, an empty range, a repeated or outside axis,
/// lengths that differ).
std::string slice_ranges(const std::vector<int64_t>& shape, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                         const std::vector<int64_t>& steps, std::vector<AxisRange>* out);

/// A Gather of one element along `axis` (the constant `indices` hold one value; negative
/// counts from the end) as a range of length 1. Returns "" or what is wrong.
std::string gather_range(const std::vector<int64_t>& shape, int64_t axis,
                         const std::vector<int64_t>& indices, AxisRange* out);

}  // namespace weft::compiler::onnx_import
