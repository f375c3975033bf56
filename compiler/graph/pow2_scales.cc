// Least-squares weight exponents and normal calibration samples; see pow2_scales.h.
#include "compiler/graph/pow2_scales.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/graph/quantize.h"
#include "compiler/ops/int8_rounding.h"

namespace weft::compiler::graph {

namespace {

// The weight x on the int8 grid whose step is 1 / inv, in steps: clipped to [-127, 127], then
// rounded half to even (adding and subtracting 1.5 * 2^52 rounds a double of magnitude below
// 2^51 in the default rounding mode; plain arithmetic, so loops of it vectorize). Clipping
// first gives what rounding first gives, and x * inv is exact in double for a float x.
inline double on_grid(double x, double inv) {
  constexpr double kMagic = 6755399441055744.0;
  return (std::min(std::max(x * inv, -127.0), 127.0) + kMagic) - kMagic;
}

// Squared error of the weights on the int8 grid 2^e (weights_on_grid's values).
double grid_error(const float* w, int64_t n, int64_t stride, int e) {
  const double inv = std::ldexp(1.0, -e), lsb = std::ldexp(1.0, e);
  double err = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = w[i * stride];
    const double q = on_grid(x, inv);
    err += (x - q * lsb) * (x - q * lsb);
  }
  return err;
}

}  // namespace

int weight_exponent(const float* w, int64_t n, int64_t stride, int below, double* err) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(std::fabs(w[i * stride])));
  const int top = pow2_exponent(m);
  if (!(m > 0)) {
    if (err) *err = grid_error(w, n, stride, top);
    return top;
  }
  // The error falls while clipping removes less than the finer grid saves, then rises: stop
  // at the first rise.
  int best = top;
  double best_err = grid_error(w, n, stride, top);
  for (int e = top - 1; e >= top - below; --e) {
    const double err = grid_error(w, n, stride, e);
    if (!(err < best_err)) break;
    best = e;
    best_err = err;
  }
  if (err) *err = best_err;
  return best;
}

void weights_on_grid(const float* w, int64_t n, int e, int8_t* out) {
  const double inv = std::ldexp(1.0, -e);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(on_grid(w[i], inv));
}

std::vector<int> weight_row_exponents(const float* w, int64_t rows, int64_t per, bool columns,
                                      bool per_channel, int below) {
  constexpr int kMaxSpread = 15;  // ops::max_register_shift for int32 accumulators
  constexpr double kGain = 16;    // per channel where per tensor costs this much more
  const int64_t stride = columns ? rows : 1;
  auto row = [&](int64_t r) { return columns ? w + r : w + r * per; };
  std::vector<int> e(static_cast<size_t>(rows));
  std::vector<double> err(static_cast<size_t>(rows));  // each row's error at its exponent
  for (int64_t r = 0; r < rows; ++r) e[r] = weight_exponent(row(r), per, stride, below, &err[r]);
  if (per_channel || rows == 0) return e;
  double t_err = 0;
  const int t = weight_exponent(w, rows * per, 1, below, &t_err);
  const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
  double row_err = 0;
  for (int64_t r = 0; r < rows; ++r) row_err += err[r];
  if (*hi - *lo > kMaxSpread || !(t_err > kGain * row_err))
    std::fill(e.begin(), e.end(), t);
  return e;
}

void MagnitudeHistogram::add(const float* x, size_t n) {
  if (count_.empty()) count_.assign(kBins, 0), sum_ = count_, sumsq_ = count_;
  for (size_t i = 0; i < n; ++i) {
    // The bin is the float's exponent and top three mantissa bits, sign cleared.
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    const uint32_t b = (bits & 0x7FFFFFFFu) >> 20;
    if (b < 8 || b >= kBins - 8) continue;  // zeros and subnormals cost nothing; no inf/nan
    const double a = std::fabs(static_cast<double>(x[i]));
    count_[b] += 1;
    sum_[b] += a;
    sumsq_[b] += a * a;
  }
  total_ += static_cast<int64_t>(n);
}

void MagnitudeHistogram::merge(const MagnitudeHistogram& o) {
  if (o.count_.empty()) return;
  if (count_.empty()) count_.assign(kBins, 0), sum_ = count_, sumsq_ = count_;
  for (size_t b = 0; b < count_.size(); ++b) {
    count_[b] += o.count_[b];
    sum_[b] += o.sum_[b];
    sumsq_[b] += o.sumsq_[b];
  }
  total_ += o.total_;
}

double MagnitudeHistogram::error(int e) const {
  const double lsb = std::ldexp(1.0, e), top = 127 * lsb;
  double err = 0;
  for (size_t b = 0; b < count_.size(); ++b) {
    if (count_[b] == 0) continue;
    const double mean = sum_[b] / count_[b];
    if (mean < lsb / 2) {
      err += sumsq_[b];  // rounds to zero
    } else if (mean > top) {
      err += sumsq_[b] - 2 * top * sum_[b] + count_[b] * top * top;  // clipped to the top
    } else {
      err += count_[b] * lsb * lsb / 12;  // rounding
    }
  }
  return err;
}

int MagnitudeHistogram::best_exponent(int max_exponent, int below) const {
  int best = max_exponent;
  double best_err = error(max_exponent);
  for (int e = max_exponent - 1; e >= max_exponent - below; --e) {
    const double err = error(e);
    if (err < best_err) best = e, best_err = err;
  }
  return best;
}

std::vector<float> normal_calibration_sample(const TensorType& t, uint32_t seed) {
  // xorshift32 and Box-Muller: the same values with every compiler and standard library.
  uint32_t s = seed ? seed : 1;
  auto uniform01 = [&s] {  // (0, 1]
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (static_cast<double>(s >> 8) + 1.0) / static_cast<double>(1u << 24);
  };
  std::vector<float> v(static_cast<size_t>(t.elements()));
  const double two_pi = 6.283185307179586;
  for (size_t i = 0; i < v.size(); i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform01())), a = two_pi * uniform01();
    v[i] = static_cast<float>(r * std::cos(a));
    if (i + 1 < v.size()) v[i + 1] = static_cast<float>(r * std::sin(a));
  }
  return v;
}

}  // namespace weft::compiler::graph
