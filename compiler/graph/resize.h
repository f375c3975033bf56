// ONNX Resize (modes nearest and linear) over plain row-major tensors of any rank, for the host
// interpreter (float and double) and through it the fp32 LLVM path's host steps.
//
// Each axis maps output index x to a source coordinate by the node's
// coordinate_transformation_mode, with s the axis's scale (its 'scales' entry: the given scale,
// or output / input length when the model gave sizes), L_in and L_out the lengths:
//   half_pixel          (x + 0.5) / s - 0.5
//   pytorch_half_pixel  L_out > 1 ? (x + 0.5) / s - 0.5 : 0
//   align_corners       L_out > 1 ? x (L_in - 1) / (L_out - 1) : 0
//   asymmetric          x / s
//   tf_half_pixel_for_nn (x + 0.5) / s
// then, as ONNX's reference does, takes the two neighbours floor(c) and floor(c) + 1 (clamped to
// the axis: the edge repeats) with the fraction r = c - floor(c): nearest picks one of them by
// nearest_mode (round_prefer_floor: the second when r > 1/2; round_prefer_ceil: when r >= 1/2;
// floor: the first; ceil: the second unless c is whole), linear weighs them (1 - r, r). The
// axes are resized one after another, the last first (the reference's order), so that every
// output is a chain of one-axis interpolations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// One axis of a Resize: for each output index its two source indices and the second's weight.
struct ResizeAxis {
  std::vector<int64_t> lo, hi;
  std::vector<double> w;  // linear: the weight of `hi`; nearest: 0 (lo == hi, the chosen one)
  bool identity = false;  // the axis is not resized
};

/// UserError naming Resize node `n` for a mode outside the ones above, or scales that do not
/// give each axis of `in` (to `out`) a positive one.
void check_resize(const Node& n, const std::vector<int64_t>& in, const std::vector<int64_t>& out);

/// The axes of Resize node `n` from `in` to `out` (its 'scales', modes), after check_resize:
/// tables as long as the output's axes.
std::vector<ResizeAxis> resize_axes(const Node& n, const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& out);

/// y = Resize(x) by `axes` (from resize_axes).
template <typename T>
void resize_kernel(const T* x, const std::vector<int64_t>& in, const std::vector<ResizeAxis>& axes,
                   T* y) {
  std::vector<T> cur(x, x + [&] {
    int64_t n = 1;
    for (int64_t d : in) n *= d;
    return n;
  }());
  std::vector<int64_t> shape = in;
  for (size_t a = axes.size(); a-- > 0;) {
    const ResizeAxis& ax = axes[a];
    if (ax.identity) continue;
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < a; ++d) outer *= shape[d];
    for (size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t li = shape[a], lo = static_cast<int64_t>(ax.w.size());
    std::vector<T> next(static_cast<size_t>(outer * lo * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < lo; ++i) {
        const T* p0 = cur.data() + (o * li + ax.lo[i]) * inner;
        const T* p1 = cur.data() + (o * li + ax.hi[i]) * inner;
        const T w1 = T(ax.w[i]), w0 = T(1) - w1;
        T* q = next.data() + (o * lo + i) * inner;
        for (int64_t k = 0; k < inner; ++k) q[k] = w0 * p0[k] + w1 * p1[k];
      }
    cur.swap(next);
    shape[a] = lo;
  }
  std::copy(cur.begin(), cur.end(), y);
}

}  // namespace weft::compiler::graph
