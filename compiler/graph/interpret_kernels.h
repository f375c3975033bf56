// Plain-loop kernels of the graph operators in their logical layouts (NCHW activations, OIHW
// weights, row-major matrices), templated on the element type: the host interpreter's
// (interpret.h: float and double) and, on integers, the int8 reference's (reference_int8.h:
// convolution sums, pooling windows, concatenation). Straight loops, no tiling; each
// floating-point result is summed in one fixed order written down here, so an instantiation's
// results are reproducible bit for bit. Shapes are checked by the caller.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace weft::compiler::graph {

/// A 2D window (convolution or pooling) over NCHW data: pads top, left, bottom, right.
struct Window2d {
  int64_t n = 1, c = 0, h = 0, w = 0;    // input
  int64_t kh = 1, kw = 1;                // kernel
  int64_t sh = 1, sw = 1;                // strides
  int64_t dh = 1, dw = 1;                // dilations
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t oh = 0, ow = 0;                // output (from ONNX's shape rules, ceil_mode included)
};

/// conv2d_kernel_loops' blocked form for floating-point T: kOB output channels by kQB output
/// columns summed in registers (vectors V of kL lanes) over every tap, on a zero-padded copy of
/// each image. Each element sees the same terms in the same order as the plain loops (a
/// multiply, then an add: no fused multiply-add, whose single rounding would differ); a padded
/// tap adds x = 0, i.e. +-0, which changes nothing when the sum starts at a value other than
/// -0 and every weight is finite (the caller checks both). Always inlined, so that a caller
/// compiled for a wider vector ISA (conv2d_blocked_avx2.cc) gets it in that ISA.
template <typename T, typename V, int64_t kL, int64_t kOB, int64_t kQB>
[[gnu::always_inline]] inline void conv2d_blocked(const T* x, const T* w, const T* bias, T* y,
                                                  const Window2d& s, int64_t o, int64_t group) {
  static_assert(kQB % kL == 0 && sizeof(V) == kL * sizeof(T));
  constexpr int64_t kV = kQB / kL;  // vectors per block of columns
  const int64_t cg = s.c / group, og = o / group;
  const int64_t owr = (s.ow + kQB - 1) / kQB * kQB;  // output columns rounded up
  const int64_t hp = std::max(s.h + s.pt + s.pb, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  const int64_t wp = std::max(s.w + s.pl + s.pr, (owr - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  std::vector<T> xp(static_cast<size_t>(s.c * hp * wp));
  std::vector<T> row(static_cast<size_t>(kOB * owr));
  // The taps in the plain loops' order (input channel, kernel row, kernel column) as one loop:
  // each one's offset in the padded image and, per block of channels, its kOB weights side by
  // side (a 1x1 layer's taps are its input channels: no loop levels of one trip, no weight
  // pointer per channel).
  const int64_t taps = cg * s.kh * s.kw;
  std::vector<int64_t> off(static_cast<size_t>(taps));
  for (int64_t ci = 0, t = 0; ci < cg; ++ci)
    for (int64_t dy = 0; dy < s.kh; ++dy)
      for (int64_t dx = 0; dx < s.kw; ++dx) off[t++] = (ci * hp + dy * s.dh) * wp + dx * s.dw;
  std::vector<T> wk(static_cast<size_t>(taps * kOB));
  for (int64_t n = 0; n < s.n; ++n) {
    std::fill(xp.begin(), xp.end(), T(0));
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t r = 0; r < s.h; ++r)
        std::copy_n(x + ((n * s.c + c) * s.h + r) * s.w, s.w,
                    xp.begin() + (c * hp + r + s.pt) * wp + s.pl);
    for (int64_t oc0 = 0, ob = 0; oc0 < o; oc0 += ob) {
      // A block never straddles two groups: its channels read the same input channels.
      const int64_t g = oc0 / og;
      ob = std::min({kOB, o - oc0, (g + 1) * og - oc0});
      for (int64_t b = 0; b < kOB; ++b) {
        const T* wb = w + (oc0 + std::min(b, ob - 1)) * taps;
        for (int64_t t = 0; t < taps; ++t) wk[static_cast<size_t>(t * kOB + b)] = wb[t];
      }
      for (int64_t r = 0; r < s.oh; ++r) {
        for (int64_t q0 = 0; q0 < owr; q0 += kQB) {
          V acc[kOB][kV];
#pragma GCC unroll 16
          for (int64_t b = 0; b < kOB; ++b)
            for (int64_t v = 0; v < kV; ++v)
              for (int64_t l = 0; l < kL; ++l)
                acc[b][v][l] = bias ? bias[oc0 + std::min(b, ob - 1)] : T(0);
          const T* base = xp.data() + (g * cg * hp + r * s.sh) * wp + q0 * s.sw;
          const T* wt = wk.data();
          for (int64_t t = 0; t < taps; ++t, wt += kOB) {
            const T* xr = base + off[static_cast<size_t>(t)];
            V xv[kV];
            for (int64_t v = 0; v < kV; ++v) {
              if (s.sw == 1) {
                std::memcpy(&xv[v], xr + v * kL, sizeof(V));
              } else {
                for (int64_t l = 0; l < kL; ++l) xv[v][l] = xr[(v * kL + l) * s.sw];
              }
            }
#pragma GCC unroll 16
            for (int64_t b = 0; b < kOB; ++b) {
              V wv;
              for (int64_t l = 0; l < kL; ++l) wv[l] = wt[b];
              for (int64_t v = 0; v < kV; ++v) acc[b][v] += wv * xv[v];
            }
          }
          for (int64_t b = 0; b < ob; ++b)
            std::memcpy(&row[static_cast<size_t>(b * owr + q0)], acc[b], sizeof(acc[b]));
        }
        for (int64_t b = 0; b < ob; ++b)
          std::copy_n(row.begin() + b * owr, s.ow, y + ((n * o + oc0 + b) * s.oh + r) * s.ow);
      }
    }
  }
}

/// conv2d_blocked in 8-lane AVX2 vectors for float (8 output channels by 8 columns) when the
/// host has AVX2 and the build targets x86-64: true when it ran (conv2d_blocked_avx2.cc).
bool conv2d_blocked_avx2(const float* x, const float* w, const float* bias, float* y,
                         const Window2d& s, int64_t o, int64_t group);

/// The blocked form on this host: AVX2 for float where there is one, else four-lane vectors
/// (SSE2, every x86-64) of 4 output channels by 8 columns. About 6x faster than the plain
/// loops on the calibration of a ResNet-50 in four lanes (most of its convolutions have 7 to
/// 28 output columns).
template <typename T>
void conv2d_kernel_blocked(const T* x, const T* w, const T* bias, T* y, const Window2d& s,
                           int64_t o, int64_t group) {
  if constexpr (std::is_same_v<T, float>) {
    if (conv2d_blocked_avx2(x, w, bias, y, s, o, group)) return;
    typedef float V __attribute__((vector_size(16)));
    conv2d_blocked<float, V, 4, 4, 8>(x, w, bias, y, s, o, group);
  } else {
    typedef double V __attribute__((vector_size(32)));
    conv2d_blocked<double, V, 4, 4, 8>(x, w, bias, y, s, o, group);
  }
}

/// y[n, o, oh, ow] = bias[o] + sum x * w, the sum over (input channel, kernel row, kernel
/// column) in that order, taps outside the input skipped; `group` groups of input channels.
/// Loops run a tap at a time over whole output rows (the inner loop over columns vectorizes);
/// each element still sees its terms in that order.
template <typename T>
void conv2d_kernel_loops(const T* x, const T* w, const T* bias, T* y, const Window2d& s,
                         int64_t o, int64_t group = 1) {
  const int64_t cg = s.c / group, og = o / group;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / og;
      T* yp = y + (n * o + oc) * s.oh * s.ow;
      std::fill(yp, yp + s.oh * s.ow, bias ? bias[oc] : T(0));
      for (int64_t ci = 0; ci < cg; ++ci) {
        const T* xp = x + (n * s.c + g * cg + ci) * s.h * s.w;
        for (int64_t dy = 0; dy < s.kh; ++dy)
          for (int64_t dx = 0; dx < s.kw; ++dx) {
            const T wv = w[((oc * cg + ci) * s.kh + dy) * s.kw + dx];
            // The output columns whose input column lies inside: [q_lo, q_hi).
            const int64_t off = dx * s.dw - s.pl;
            const int64_t q_lo = off >= 0 ? 0 : (-off + s.sw - 1) / s.sw;
            const int64_t q_hi =
                std::min(s.ow, s.w - off <= 0 ? int64_t{0} : (s.w - off + s.sw - 1) / s.sw);
            for (int64_t r = 0; r < s.oh; ++r) {
              const int64_t iy = r * s.sh + dy * s.dh - s.pt;
              if (iy < 0 || iy >= s.h) continue;
              T* yrow = yp + r * s.ow;
              const T* xrow = xp + iy * s.w;
              if (s.sw == 1) {
                for (int64_t q = q_lo; q < q_hi; ++q) yrow[q] += wv * xrow[q + off];
              } else {
                for (int64_t q = q_lo; q < q_hi; ++q) yrow[q] += wv * xrow[q * s.sw + off];
              }
            }
          }
      }
    }
}

/// C[M, N] = A[M, K] W[N, K]^T, each element summed over k in order from 0, starting from
/// `init`[i] for row i (a convolution's bias), or 0.
template <typename T>
void dense_kernel_loops(const T* a, const T* w, T* c, int64_t m, int64_t n, int64_t k,
                        const T* init = nullptr) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T acc = init ? init[i] : T(0);
      for (int64_t q = 0; q < k; ++q) acc += a[i * k + q] * w[j * k + q];
      c[i * n + j] = acc;
    }
}

/// dense_kernel_loops' blocked form for floating-point T: kR rows by kJ columns of C summed in
/// registers (vectors V of kL lanes, a lane per column) over k in order, W's columns packed in
/// zero-padded panels [K][kJ]. Each element sees the same terms in the same order, a multiply
/// then an add, from the same +0 (columns and rows past the edge are computed and dropped), so
/// the result is the loops' bit for bit with no condition on the values. Always inlined, as
/// conv2d_blocked, for dense_blocked_avx2.cc.
/// `w_kn`: W is given as its transpose, [K][N] (a MatMul's B), read without a transposed copy.
template <typename T, typename V, int64_t kL, int64_t kR, int64_t kJ>
[[gnu::always_inline]] inline void dense_blocked(const T* a, const T* w, T* c, int64_t m,
                                                 int64_t n, int64_t k, bool w_kn = false,
                                                 const T* init = nullptr) {
  static_assert(kJ % kL == 0 && sizeof(V) == kL * sizeof(T));
  constexpr int64_t kV = kJ / kL;
  std::vector<T> panel(static_cast<size_t>(k * kJ));
  for (int64_t j0 = 0; j0 < n; j0 += kJ) {
    const int64_t nj = std::min(kJ, n - j0);
    std::fill(panel.begin(), panel.end(), T(0));
    if (w_kn) {
      for (int64_t q = 0; q < k; ++q)
        std::copy_n(w + q * n + j0, nj, panel.begin() + q * kJ);
    } else {
      for (int64_t l = 0; l < nj; ++l)
        for (int64_t q = 0; q < k; ++q) panel[static_cast<size_t>(q * kJ + l)] = w[(j0 + l) * k + q];
    }
    for (int64_t i0 = 0; i0 < m; i0 += kR) {
      const T* ar[kR];
      for (int64_t r = 0; r < kR; ++r) ar[r] = a + std::min(i0 + r, m - 1) * k;
      // No address of acc or wv is taken (lane reads and writes only), so that the compiler
      // keeps them in registers.
      V acc[kR][kV] = {};
      if (init)
        for (int64_t r = 0; r < kR; ++r)
          for (int64_t v = 0; v < kV; ++v)
            for (int64_t l = 0; l < kL; ++l) acc[r][v][l] = init[std::min(i0 + r, m - 1)];
      const T* pq = panel.data();
      for (int64_t q = 0; q < k; ++q, pq += kJ) {
        V wv[kV];
#pragma GCC unroll 16
        for (int64_t v = 0; v < kV; ++v)
          for (int64_t l = 0; l < kL; ++l) wv[v][l] = pq[v * kL + l];
#pragma GCC unroll 16
        for (int64_t r = 0; r < kR; ++r) {
          V av;
          for (int64_t l = 0; l < kL; ++l) av[l] = ar[r][q];
          for (int64_t v = 0; v < kV; ++v) acc[r][v] += av * wv[v];
        }
      }
      for (int64_t r = 0; r < kR && i0 + r < m; ++r)
        for (int64_t j = 0; j < nj; ++j) c[(i0 + r) * n + j0 + j] = acc[r][j / kL][j % kL];
    }
  }
}

/// dense_blocked in 8-lane AVX2 vectors for float (4 rows by 16 columns) when the host has
/// AVX2 and the build targets x86-64: true when it ran (dense_blocked_avx2.cc).
bool dense_blocked_avx2(const float* a, const float* w, float* c, int64_t m, int64_t n, int64_t k,
                        bool w_kn, const float* init);

/// dense_kernel_loops' result, W [N, K] or (`w_kn`) its transpose [K, N], rows starting from
/// `init` or 0: by the blocked form for floating-point T (AVX2 for float where the host has it,
/// else 4-lane vectors), by the loops for integers ([N, K] only). A transformer's calibration
/// is mostly these products (ViT-B/16: 17.6 G multiply-adds), a CNN's its 1x1 convolutions.
template <typename T>
void dense_kernel(const T* a, const T* w, T* c, int64_t m, int64_t n, int64_t k,
                  bool w_kn = false, const T* init = nullptr) {
  if constexpr (std::is_same_v<T, float>) {
    if (dense_blocked_avx2(a, w, c, m, n, k, w_kn, init)) return;
    typedef float V __attribute__((vector_size(16)));
    dense_blocked<float, V, 4, 4, 8>(a, w, c, m, n, k, w_kn, init);
  } else if constexpr (std::is_same_v<T, double>) {
    typedef double V __attribute__((vector_size(32)));
    dense_blocked<double, V, 4, 4, 8>(a, w, c, m, n, k, w_kn, init);
  } else {
    static_assert(std::is_integral_v<T>);
    if (w_kn) throw std::logic_error("dense_kernel: an integer W must be [N, K]");
    dense_kernel_loops(a, w, c, m, n, k, init);
  }
}

/// conv2d_kernel_loops' result, by the blocked form where that is the same bit for bit. A 1x1
/// convolution with stride 1 and no padding is a dense product per image, W [O, C] by X [C, HW]
/// from the bias (the same terms in the same order, no padded tap): a 1x1 layer's taps are
/// whole input planes, which the blocked form reads a plane apart for every 8 columns.
template <typename T>
void conv2d_kernel(const T* x, const T* w, const T* bias, T* y, const Window2d& s, int64_t o,
                   int64_t group = 1) {
  if constexpr (std::is_floating_point_v<T>) {
    if (s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && group == 1 && s.pt == 0 &&
        s.pl == 0 && s.pb == 0 && s.pr == 0 && s.oh == s.h && s.ow == s.w) {
      const int64_t hw = s.h * s.w;
      for (int64_t n = 0; n < s.n; ++n)
        dense_kernel<T>(w, x + n * s.c * hw, y + n * o * hw, o, hw, s.c, /*w_kn=*/true, bias);
      return;
    }
    bool exact = true;
    for (int64_t i = 0; exact && i < o * (s.c / group) * s.kh * s.kw; ++i)
      exact = std::isfinite(w[i]);
    for (int64_t i = 0; exact && bias && i < o; ++i)
      exact = !(bias[i] == T(0) && std::signbit(bias[i]));
    if (exact) return conv2d_kernel_blocked(x, w, bias, y, s, o, group);
  }
  conv2d_kernel_loops(x, w, bias, y, s, o, group);
}

/// Max pooling of values held in channel blocks of `cb` (HostValue::cblock; a plain NCHW tensor
/// is blocks of 1): y in the same blocks; padded taps never win (ONNX's MaxPool). Each output
/// position takes the lane-wise maximum of its taps' blocks in a local array (no aliasing with
/// x, so the lanes vectorize; a block of 16, the fp32 path's convolutions, with its count
/// known).
template <typename T>
void max_pool_blocked_kernel(const T* x, T* y, const Window2d& s, int64_t cb) {
  const T start = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                       : std::numeric_limits<T>::lowest();
  auto blocks = [&](auto width, T* acc) {
    const int64_t nb = (s.c + cb - 1) / cb;
    for (int64_t b = 0; b < s.n * nb; ++b)
      for (int64_t r = 0; r < s.oh; ++r)
        for (int64_t q = 0; q < s.ow; ++q) {
          for (int64_t l = 0; l < width(); ++l) acc[l] = start;
          for (int64_t dy = 0; dy < s.kh; ++dy) {
            const int64_t iy = r * s.sh + dy * s.dh - s.pt;
            if (iy < 0 || iy >= s.h) continue;
            for (int64_t dx = 0; dx < s.kw; ++dx) {
              const int64_t ix = q * s.sw + dx * s.dw - s.pl;
              if (ix < 0 || ix >= s.w) continue;
              const T* in = x + ((b * s.h + iy) * s.w + ix) * cb;
              for (int64_t l = 0; l < width(); ++l) acc[l] = std::max(acc[l], in[l]);
            }
          }
          std::copy(acc, acc + width(), y + ((b * s.oh + r) * s.ow + q) * cb);
        }
  };
  if (cb == 16) {
    T acc[16];
    blocks([] { return int64_t{16}; }, acc);
  } else {
    std::vector<T> acc(static_cast<size_t>(cb));
    blocks([cb] { return cb; }, acc.data());
  }
}

/// Max pooling; padded taps never win (ONNX's MaxPool). The start value is -inf for floating
/// types, the lowest value otherwise.
template <typename T>
void max_pool_kernel(const T* x, T* y, const Window2d& s) {
  max_pool_blocked_kernel<T>(x, y, s, 1);
}

/// Average pooling: y = mean(sum, count) with the window's sum (in Acc, taps in row-major
/// order) and count. count_include_pad: the window clipped to the padded input (ONNX's rule:
/// taps past the explicit pads, from ceil_mode, never count); else the taps inside the input.
template <typename T, typename Acc, typename Mean>
void avg_pool_kernel(const T* x, T* y, const Window2d& s, bool count_include_pad,
                     const Mean& mean) {
  for (int64_t nc = 0; nc < s.n * s.c; ++nc)
    for (int64_t r = 0; r < s.oh; ++r)
      for (int64_t q = 0; q < s.ow; ++q) {
        Acc sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t dy = 0; dy < s.kh; ++dy) {
          const int64_t iy = r * s.sh + dy - s.pt;
          if (iy >= s.h + s.pb) continue;
          for (int64_t dx = 0; dx < s.kw; ++dx) {
            const int64_t ix = q * s.sw + dx - s.pl;
            if (ix >= s.w + s.pr) continue;
            ++padded;
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
            sum += x[(nc * s.h + iy) * s.w + ix];
            ++inside;
          }
        }
        y[(nc * s.oh + r) * s.ow + q] = mean(sum, count_include_pad ? padded : inside);
      }
}

/// Floating-point average pooling: sum / count (0 for an empty window).
template <typename T>
void avg_pool_kernel(const T* x, T* y, const Window2d& s, bool count_include_pad) {
  avg_pool_kernel<T, T>(x, y, s, count_include_pad,
                        [](T sum, int64_t count) { return count ? sum / T(count) : T(0); });
}

/// Mean over all positions of each (n, c) plane, summed and divided in double.
template <typename T>
void global_avg_pool_kernel(const T* x, T* y, int64_t nc, int64_t plane) {
  for (int64_t i = 0; i < nc; ++i) {
    double sum = 0;
    for (int64_t k = 0; k < plane; ++k) sum += x[i * plane + k];
    y[i] = static_cast<T>(sum / static_cast<double>(plane));
  }
}

/// global_avg_pool_kernel of x held in channel blocks of `cb` ([N, ceil(C / cb), plane, cb]:
/// HostValue::cblock) to y [N, C]: the same sums in the same order, lane by lane.
template <typename T>
void global_avg_pool_blocked_kernel(const T* x, T* y, int64_t n, int64_t c, int64_t plane,
                                    int64_t cb) {
  const int64_t blocks = (c + cb - 1) / cb;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k) {
      const T* from = x + ((i * blocks + k / cb) * plane) * cb + k % cb;
      double sum = 0;
      for (int64_t p = 0; p < plane; ++p) sum += from[p * cb];
      y[i * c + k] = static_cast<T>(sum / static_cast<double>(plane));
    }
}

/// x held in channel blocks of `cb` ([N, ceil(C / cb), spatial, cb]: HostValue::cblock) to its
/// logical layout [N, C, spatial] at y; `plane` is the spatial size.
template <typename T>
void unblock_channels_kernel(const T* x, T* y, int64_t n, int64_t c, int64_t plane, int64_t cb) {
  const int64_t blocks = (c + cb - 1) / cb;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k) {
      const T* from = x + ((i * blocks + k / cb) * plane) * cb + k % cb;
      T* to = y + (i * c + k) * plane;
      for (int64_t p = 0; p < plane; ++p) to[p] = from[p * cb];
    }
}

/// Inference batch norm over NC(spatial) data: (x - mean) / sqrt(var + eps) * scale + bias,
/// the difference in T and the rest in double.
template <typename T>
void batch_norm_kernel(const T* x, const T* scale, const T* bias, const T* mean, const T* var,
                       double eps, T* y, int64_t n, int64_t c, int64_t plane) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k) {
      const double root = std::sqrt(static_cast<double>(var[k]) + eps);
      for (int64_t p = 0; p < plane; ++p) {
        const int64_t at = (i * c + k) * plane + p;
        const T centred = x[at] - mean[k];
        y[at] = static_cast<T>(static_cast<double>(centred) / root * scale[k] + bias[k]);
      }
    }
}

/// min(max(x, lo), hi) element-wise (ReLU is lo = 0, hi = +inf).
template <typename T>
void clip_kernel(const T* x, T* y, int64_t count, T lo, T hi) {
  for (int64_t i = 0; i < count; ++i) y[i] = std::min(std::max(x[i], lo), hi);
}

/// Row-major strides of `shape` as seen from an output of rank `rank` (numpy broadcasting:
/// missing leading and size-1 dimensions get stride 0).
inline std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& shape, size_t rank) {
  std::vector<int64_t> st(rank, 0);
  int64_t s = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t d = shape.size() - 1 - i, o = rank - 1 - i;
    st[o] = shape[d] == 1 ? 0 : s;
    s *= shape[d];
  }
  return st;
}

/// y = f(a, b) with numpy broadcasting to `out` (the broadcast shape), element by element in
/// row-major order of `out`.
template <typename T, typename F>
void broadcast_kernel(const T* a, const std::vector<int64_t>& as, const T* b,
                      const std::vector<int64_t>& bs, T* y, const std::vector<int64_t>& out,
                      const F& f) {
  const size_t rank = out.size();
  const auto sa = broadcast_strides(as, rank), sb = broadcast_strides(bs, rank);
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> idx(rank, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    y[i] = f(a[ia], b[ib]);
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < out[d]) break;
      ia -= sa[d] * out[d];
      ib -= sb[d] * out[d];
      idx[d] = 0;
    }
  }
}

/// Concatenates `parts` (each `outer` x parts_inner[i] x ... in row-major blocks) along the
/// axis that splits the shape into outer (dimensions before it) and inner (from it on).
template <typename T>
void concat_kernel(const std::vector<const T*>& parts, const std::vector<int64_t>& inner,
                   int64_t outer, T* y) {
  int64_t row = 0;
  for (int64_t v : inner) row += v;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t at = o * row;
    for (size_t p = 0; p < parts.size(); ++p) {
      std::copy(parts[p] + o * inner[p], parts[p] + (o + 1) * inner[p], y + at);
      at += inner[p];
    }
  }
}

/// Elements b, b + step, ... below e of axis `axis` of x (shape `shape`): each outer block's
/// runs copied in order (ONNX Split's parts; the int8 channel slices of split_groups; torch's
/// x[..., 0::2, :] with step 2).
template <typename T>
void slice_kernel(const T* x, const std::vector<int64_t>& shape, size_t axis, int64_t b,
                  int64_t e, T* y, int64_t step = 1) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t dim = shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    if (step == 1) {
      y = std::copy(x + (o * dim + b) * inner, x + (o * dim + e) * inner, y);
      continue;
    }
    for (int64_t i = b; i < e; i += step)
      y = std::copy(x + (o * dim + i) * inner, x + (o * dim + i + 1) * inner, y);
  }
}

}  // namespace weft::compiler::graph
