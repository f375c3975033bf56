// The host interpreter's loops for the operators of a transformer encoder that are not
// element-wise: Transpose, Softmax, ReduceMean and LayerNormalization over plain (row-major)
// float tensors, templated on the element type T (float for calibration and the fp32 nodes of
// an int8 network, double for the reference the LLVM path is held to). Each takes the input's
// shape; the output's size follows from it. Reductions sum in T, in index order, so a run is
// reproducible bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "compiler/ir/float_functions.h"
#include "compiler/ops/float_eltwise.h"

namespace weft::compiler::graph {

/// Row-major strides of `shape`.
inline std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

/// y = x transposed by `perm` (output dimension d is input dimension perm[d]).
template <typename T>
void transpose_kernel(const T* x, const std::vector<int64_t>& xs, const std::vector<int64_t>& perm,
                      T* y) {
  const size_t r = xs.size();
  if (r == 0) {  // a scalar
    y[0] = x[0];
    return;
  }
  const std::vector<int64_t> st = row_major_strides(xs);
  std::vector<int64_t> ys(r), ystride(r);  // output shape; input stride of each output dim
  int64_t count = 1;
  for (size_t d = 0; d < r; ++d) {
    ys[d] = xs[static_cast<size_t>(perm[d])];
    ystride[d] = st[static_cast<size_t>(perm[d])];
    count *= ys[d];
  }
  std::vector<int64_t> idx(r, 0);
  int64_t src = 0;
  for (int64_t i = 0; i < count; ++i) {
    y[i] = x[src];
    for (size_t d = r; d-- > 0;) {  // odometer over the output's index
      if (++idx[d] < ys[d]) {
        src += ystride[d];
        break;
      }
      src -= (ys[d] - 1) * ystride[d];
      idx[d] = 0;
    }
  }
}

/// The tensor seen as [outer, n, inner] around `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const std::vector<int64_t>& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < axis ? s.outer : d == axis ? s.n : s.inner) *= shape[static_cast<size_t>(d)];
  return s;
}

/// Softmax along `axis` (ONNX opset 13), stable: exp(x - max) / sum, the sum in
/// ops::kRowSumLanes partial sums (float_eltwise.h).
template <typename T>
void softmax_kernel(const T* x, const std::vector<int64_t>& xs, int64_t axis, T* y) {
  const AxisSplit s = split_at(xs, axis);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.n * s.inner + in;
      T m = x[base];
      for (int64_t k = 1; k < s.n; ++k) m = std::max(m, x[base + k * s.inner]);
      T part[ops::kRowSumLanes] = {};
      for (int64_t k = 0; k < s.n; ++k) {
        const T e = ir::exp_of(x[base + k * s.inner] - m);
        y[base + k * s.inner] = e;
        part[k % ops::kRowSumLanes] += e;
      }
      const T sum = ops::row_sum_total(part, [](T a, T b) { return a + b; });
      for (int64_t k = 0; k < s.n; ++k) y[base + k * s.inner] /= sum;
    }
}

/// Mean over the axes marked in `reduced` (one flag per dimension); `y` has the kept
/// dimensions' elements in order (keepdims only changes the shape, not the data).
template <typename T>
void reduce_mean_kernel(const T* x, const std::vector<int64_t>& xs, const std::vector<bool>& reduced,
                        T* y, int64_t y_count) {
  const size_t r = xs.size();
  if (r == 0) {  // a scalar is its own mean
    y[0] = x[0];
    return;
  }
  std::vector<int64_t> ystride(r, 0);  // stride in y of each input dim (0 where reduced)
  int64_t acc = 1, per = 1;
  for (size_t d = r; d-- > 0;) {
    if (reduced[d]) {
      per *= xs[d];
    } else {
      ystride[d] = acc;
      acc *= xs[d];
    }
  }
  // Trailing axes (a LayerNorm written out as ReduceMean): each mean is one contiguous run,
  // summed in the order the general walk below sums it, without its index bookkeeping.
  size_t kept = 0;
  while (kept < r && !reduced[kept]) ++kept;
  bool trailing = true;
  for (size_t d = kept; d < r; ++d) trailing = trailing && reduced[d];
  if (trailing) {
    for (int64_t o = 0; o < y_count; ++o) {
      T sum = T(0);
      for (int64_t k = 0; k < per; ++k) sum += x[o * per + k];
      y[o] = sum / T(per);
    }
    return;
  }
  std::fill(y, y + y_count, T(0));
  int64_t count = 1;
  for (int64_t d : xs) count *= d;
  std::vector<int64_t> idx(r, 0);
  int64_t dst = 0;
  for (int64_t i = 0; i < count; ++i) {
    y[dst] += x[i];
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < xs[d]) {
        dst += ystride[d];
        break;
      }
      dst -= (xs[d] - 1) * ystride[d];
      idx[d] = 0;
    }
  }
  for (int64_t i = 0; i < y_count; ++i) y[i] /= T(per);
}

/// LayerNormalization (opset 17): each row of the trailing dimensions from `axis` on,
/// (x - mean) / sqrt(var + eps) * scale + bias, scale and bias broadcast over the row
/// (`scale_n`/`bias_n` elements, each a trailing part of the row's shape, as inference checks;
/// bias may be null). `output` 1 or 2: y gets each row's mean or 1 / sqrt(var + eps) instead
/// (ONNX's optional Mean and InvStdDev outputs).
template <typename T>
void layer_norm_kernel(const T* x, const std::vector<int64_t>& xs, int64_t axis, double eps,
                       const T* scale, int64_t scale_n, const T* bias, int64_t bias_n, T* y,
                       int output = 0) {
  int64_t rows = 1, len = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(xs.size()); ++d)
    (d < axis ? rows : len) *= xs[static_cast<size_t>(d)];
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * len;
    T* yr = y + r * len;
    auto row_sum = [&](auto term) {  // in ops::kRowSumLanes partials (float_eltwise.h)
      T part[ops::kRowSumLanes] = {};
      for (int64_t i = 0; i < len; ++i) part[i % ops::kRowSumLanes] += term(i);
      return ops::row_sum_total(part, [](T a, T b) { return a + b; });
    };
    const T mean = row_sum([&](int64_t i) { return xr[i]; }) / T(len);
    const T var = row_sum([&](int64_t i) {
                    const T d = xr[i] - mean;
                    return d * d;
                  }) /
                  T(len);
    const T inv = T(1) / std::sqrt(var + T(eps));
    if (output) {
      y[r] = output == 1 ? mean : inv;
      continue;
    }
    for (int64_t i = 0; i < len; ++i) {
      T v = (xr[i] - mean) * inv * scale[i % scale_n];
      if (bias) v += bias[i % bias_n];
      yr[i] = v;
    }
  }
}

}  // namespace weft::compiler::graph
