// Conversions between the plain layouts users hold (NCHW activations, OIHW weights) and the
// channel-blocked layouts of the CPU conv2d (conv2d.h). Plain loops: they run outside the
// timed kernels, like oneDNN's reorders.
#pragma once

#include <cstdint>
#include <vector>

namespace weft::compiler::ops::cpu {

/// NCHW -> [N, ceil(C/cb), H, W, cb], channels past C zero.
template <typename T>
std::vector<T> to_blocked(const T* x, int64_t n, int64_t c, int64_t h, int64_t w, int64_t cb) {
  const int64_t nb = (c + cb - 1) / cb;
  std::vector<T> out(static_cast<size_t>(n * nb * h * w * cb), T(0));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t xx = 0; xx < w; ++xx)
          out[static_cast<size_t>((((in * nb + ic / cb) * h + y) * w + xx) * cb + ic % cb)] =
              x[((in * c + ic) * h + y) * w + xx];
  return out;
}
template <typename T>
std::vector<T> to_blocked(const std::vector<T>& x, int64_t n, int64_t c, int64_t h, int64_t w,
                          int64_t cb) {
  return to_blocked(x.data(), n, c, h, w, cb);
}

/// [N, ceil(C/cb), H, W, cb] -> NCHW (dropping padded channels).
template <typename T>
std::vector<T> from_blocked(const std::vector<T>& x, int64_t n, int64_t c, int64_t h, int64_t w,
                            int64_t cb) {
  const int64_t nb = (c + cb - 1) / cb;
  std::vector<T> out(static_cast<size_t>(n * c * h * w));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t xx = 0; xx < w; ++xx)
          out[static_cast<size_t>(((in * c + ic) * h + y) * w + xx)] =
              x[static_cast<size_t>((((in * nb + ic / cb) * h + y) * w + xx) * cb + ic % cb)];
  return out;
}

/// OIHW -> [ceil(O/ob), C/cb, KH, KW, cb, ob], output channels past O zero.
template <typename T>
std::vector<T> pack_conv_weights(const std::vector<T>& wt, int64_t o, int64_t c, int64_t kh,
                                 int64_t kw, int64_t cb, int64_t ob) {
  const int64_t nob = (o + ob - 1) / ob, ncb = c / cb;
  std::vector<T> out(static_cast<size_t>(nob * ncb * kh * kw * cb * ob), T(0));
  for (int64_t io = 0; io < o; ++io)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t xx = 0; xx < kw; ++xx)
          out[static_cast<size_t>(
              (((((io / ob) * ncb + ic / cb) * kh + y) * kw + xx) * cb + ic % cb) * ob + io % ob)] =
              wt[static_cast<size_t>(((io * c + ic) * kh + y) * kw + xx)];
  return out;
}

/// Blocked int8 conv weights [nob, ncb, KH, KW, cb, ob] -> the int8 conv2d's paired layout
/// [nob, ncb, KH, KW, ceil(cb/2), ob] of int32: channel 2q in the low int16 half, 2q+1 (or 0)
/// in the high one.
inline std::vector<int32_t> pair_conv_weights(const std::vector<int8_t>& wb, int64_t nob,
                                              int64_t ncb, int64_t kh, int64_t kw, int64_t cb,
                                              int64_t ob) {
  const int64_t cb2 = (cb + 1) / 2, outer = nob * ncb * kh * kw;
  std::vector<int32_t> out(static_cast<size_t>(outer * cb2 * ob));
  for (int64_t t = 0; t < outer; ++t)
    for (int64_t q = 0; q < cb2; ++q)
      for (int64_t o = 0; o < ob; ++o) {
        const int32_t lo = wb[static_cast<size_t>((t * cb + 2 * q) * ob + o)];
        const int32_t hi =
            2 * q + 1 < cb ? wb[static_cast<size_t>((t * cb + 2 * q + 1) * ob + o)] : 0;
        out[static_cast<size_t>((t * cb2 + q) * ob + o)] = static_cast<int32_t>(
            (static_cast<uint32_t>(lo) & 0xffffu) | (static_cast<uint32_t>(hi) << 16));
      }
  return out;
}

/// Blocked int8 conv weights [nob, ncb, KH, KW, cb, ob] -> the int8 conv2d's quad layout
/// (ConvSchedule::k_pack 4) [nob, ncb, KH, KW, ceil(cb/4), ob] of int32: channels 4q to 4q+3
/// (0 past cb) as its bytes, low byte first.
inline std::vector<int32_t> quad_conv_weights(const std::vector<int8_t>& wb, int64_t nob,
                                              int64_t ncb, int64_t kh, int64_t kw, int64_t cb,
                                              int64_t ob) {
  const int64_t cb4 = (cb + 3) / 4, outer = nob * ncb * kh * kw;
  std::vector<int32_t> out(static_cast<size_t>(outer * cb4 * ob));
  for (int64_t t = 0; t < outer; ++t)
    for (int64_t q = 0; q < cb4; ++q)
      for (int64_t o = 0; o < ob; ++o) {
        uint32_t v = 0;
        for (int64_t b = 0; b < 4 && 4 * q + b < cb; ++b)
          v |= static_cast<uint32_t>(static_cast<uint8_t>(
                   wb[static_cast<size_t>((t * cb + 4 * q + b) * ob + o)]))
               << (8 * b);
        out[static_cast<size_t>((t * cb4 + q) * ob + o)] = static_cast<int32_t>(v);
      }
  return out;
}

/// The int8 conv2d's weights for a schedule's k_pack: pairs (2) or quads (4).
inline std::vector<int32_t> pack_int8_conv_weights(const std::vector<int8_t>& wb, int64_t k_pack,
                                                   int64_t nob, int64_t ncb, int64_t kh,
                                                   int64_t kw, int64_t cb, int64_t ob) {
  return k_pack == 4 ? quad_conv_weights(wb, nob, ncb, kh, kw, cb, ob)
                     : pair_conv_weights(wb, nob, ncb, kh, kw, cb, ob);
}

}  // namespace weft::compiler::ops::cpu
