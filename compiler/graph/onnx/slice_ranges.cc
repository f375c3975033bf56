// Slice and Gather of a computed tensor as graph Slice ranges; see slice_ranges.h.
#include "compiler/graph/onnx/slice_ranges.h"

#include <algorithm>

namespace weft::compiler::onnx_import {
namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Axis `a` of a rank-`rank` tensor in 0..rank-1, or -1 when outside.
int64_t normal_axis(int64_t a, int64_t rank) {
  const int64_t n = a < 0 ? a + rank : a;
  return n < 0 || n >= rank ? -1 : n;
}

}  // namespace

std::string slice_ranges(const std::vector<int64_t>& shape, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& ends, const std::vector<int64_t>& axes_in,
                         const std::vector<int64_t>& steps, std::vector<AxisRange>* out) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes = axes_in;
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      (!steps.empty() && steps.size() != starts.size()))
    return "starts " + list(starts) + ", ends " + list(ends) + ", axes " + list(axes) +
           (steps.empty() ? "" : ", steps " + list(steps)) + " differ in length";
  std::vector<bool> seen(shape.size(), false);
  out->clear();
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = normal_axis(axes[i], rank);
    if (axis < 0) return "axis " + std::to_string(axes[i]) + " is outside the " +
                         std::to_string(rank) + " axes of " + list(shape);
    if (seen[static_cast<size_t>(axis)]) return "axis " + std::to_string(axes[i]) + " is repeated";
    seen[static_cast<size_t>(axis)] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (step < 1)  // torch writes positive steps (x[..., 0::2, :]); flips are not supported
      return "step " + std::to_string(step) + " on axis " + std::to_string(axis) +
             " is not supported on a computed tensor (only 1 or more)";
    const int64_t dim = shape[static_cast<size_t>(axis)];
    // ONNX: a negative bound counts from the end; both are clamped to [0, dim].
    auto clamp = [dim](int64_t b) { return std::clamp(b < 0 ? b + dim : b, int64_t(0), dim); };
    const int64_t b = clamp(starts[i]), e = clamp(ends[i]);
    if (e <= b)
      return "elements [" + std::to_string(starts[i]) + ", " + std::to_string(ends[i]) +
             ") of axis " + std::to_string(axis) + " of " + list(shape) +
             " are empty (Weft has no empty tensors)";
    if (b > 0 || e < dim || step > 1) out->push_back({axis, b, e, step});
  }
  std::sort(out->begin(), out->end(),
            [](const AxisRange& x, const AxisRange& y) { return x.axis < y.axis; });
  return "";
}

std::string gather_range(const std::vector<int64_t>& shape, int64_t axis_in,
                         const std::vector<int64_t>& indices, AxisRange* out) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = normal_axis(axis_in, rank);
  if (axis < 0) return "axis " + std::to_string(axis_in) + " is outside the " +
                       std::to_string(rank) + " axes of " + list(shape);
  if (indices.size() != 1)
    return "indices " + list(indices) + " on a computed tensor: only one index is supported";
  const int64_t dim = shape[static_cast<size_t>(axis)];
  const int64_t i = indices[0] < 0 ? indices[0] + dim : indices[0];
  if (i < 0 || i >= dim)
    return "index " + std::to_string(indices[0]) + " is outside axis " + std::to_string(axis) +
           " of " + list(shape);
  *out = {axis, i, i + 1};
  return "";
}

}  // namespace weft::compiler::onnx_import
