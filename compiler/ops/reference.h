// Scalar references of the CPU and GPU GEMM-like operators in plain layouts (row-major dense,
// NCHW/OIHW conv2d): what `weft run OP --target llvm|cuda`, the CPU tuner's measurer and the
// operator tests check the kernels against.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/conv2d_nchw.h"

namespace weft::compiler::ops {

/// C[M, N] = sum_k A[M, K] * W[N, K] accumulated in Acc (double for float inputs is closer).
template <typename In, typename Acc>
std::vector<Acc> dense_reference(const std::vector<In>& a, const std::vector<In>& w, int64_t m,
                                 int64_t n, int64_t k) {
  std::vector<Acc> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Acc s = 0;
      for (int64_t q = 0; q < k; ++q)
        s += static_cast<Acc>(a[static_cast<size_t>(i * k + q)]) *
             static_cast<Acc>(w[static_cast<size_t>(j * k + q)]);
      c[static_cast<size_t>(i * n + j)] = s;
    }
  return c;
}

/// NCHW conv2d with OIHW weights, zero padding.
template <typename In, typename Acc>
std::vector<Acc> conv2d_reference(const std::vector<In>& x, const std::vector<In>& wt,
                                  const Conv2dNchw& s) {
  const int64_t oh = s.oh(), ow = s.ow();
  std::vector<Acc> y(static_cast<size_t>(s.n * s.o * oh * ow));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          Acc acc = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t dy = 0; dy < s.kh; ++dy)
              for (int64_t dx = 0; dx < s.kw; ++dx) {
                const int64_t iy = r * s.stride + dy - s.pad, ix = q * s.stride + dx - s.pad;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                acc += static_cast<Acc>(
                           x[static_cast<size_t>(((n * s.c + c) * s.h + iy) * s.w + ix)]) *
                       static_cast<Acc>(
                           wt[static_cast<size_t>(((o * s.c + c) * s.kh + dy) * s.kw + dx)]);
              }
          y[static_cast<size_t>(((n * s.o + o) * oh + r) * ow + q)] = acc;
        }
  return y;
}

}  // namespace weft::compiler::ops
