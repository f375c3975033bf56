// How the quantizer (quantize.h) picks power-of-two scales where "cover the largest magnitude"
// is the wrong rule, and what it calibrates on when the user gives no samples.
//
// Weights: the exponent whose int8 grid, clipping included, is closest to the weights (least
// squared error), searched from the one that covers the largest magnitude downwards. A weight
// tensor with a single outlier (PyTorch's trunc_normal_ clamps a few values to its absolute
// bounds of +-2 where the others have a standard deviation of 0.02) would otherwise put most of
// its weights in the lowest one or two int8 steps; clipping the outlier costs far less.
//
// A weight tensor with an outlier is quantized per output channel even without --per-channel:
// no single exponent serves both the outlier and the rest (Swin-T's and ConvNeXt's few weights
// of +-2.0 among values of standard deviation 0.02: clipping the outlier wrecks its output
// channel, covering it leaves the others five int8 steps per standard deviation). A layer is
// per channel where one exponent for the tensor costs over 16 times the squared error of one
// per row (27 to 96 times for those tensors; no other tensor of torchvision's 19 networks is
// picked, the closest, depthwise and squeeze-excite layers, are at 3.8 to 7.4).
//
// Activations: the exponent that covers the largest magnitude seen, or one or two below it
// where that is closer (least squared error, from a histogram of the magnitudes) and enough
// values were seen for the tail to be measured (quantize.cc says which values).
//
// Calibration without samples: standard normal values. Networks take normalized inputs (image
// channels standardized to unit variance, transformer embeddings layer-normalized); a sample
// that is narrower than the input (uniform in [-1, 1), variance 1/3) gives scales that clip
// what the real input reaches, and clipping costs far more than a grid one step coarser.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/types.h"

namespace weft::compiler::graph {

/// The exponent e minimizing sum_i (w_i - 2^e * clip(round(w_i / 2^e), -127, 127))^2 over the
/// `n` weights w[0], w[stride], ..., w[(n-1)*stride]; pow2_exponent(max |w|) (quantize.h) at
/// most, `below` under it at least (0: the one that covers the largest magnitude). `err`, when
/// given, receives that sum at the exponent chosen.
int weight_exponent(const float* w, int64_t n, int64_t stride = 1, int below = 8,
                    double* err = nullptr);

/// Exponents for the rows (output channels) of a weight of `rows` x `per` values, each row
/// contiguous, or each a column (stride `rows`) with `columns`: one per row with `per_channel`,
/// else one for all rows unless the tensor has an outlier (above); each of least squared error
/// (weight_exponent, `below`). The outlier rule keeps a tensor per tensor where its rows'
/// exponents spread over more than 15 (what one register SHR of the accelerator applies on top
/// of a common shift, ops/channel_shifts.h).
std::vector<int> weight_row_exponents(const float* w, int64_t rows, int64_t per, bool columns,
                                      bool per_channel, int below = 8);

/// The `n` weights on the int8 grid 2^e, clip(round_half_even(w / 2^e), -127, 127): the values
/// weight_exponent prices, in one vectorizable loop (a library call per weight was a tenth of
/// Wide ResNet-50's calibration).
void weights_on_grid(const float* w, int64_t n, int e, int8_t* out);

/// The magnitudes a calibration saw of one value (or a group of values sharing a scale), in
/// bins of an eighth of an octave: enough to price any power-of-two grid without the data.
class MagnitudeHistogram {
 public:
  void add(const float* x, size_t n);
  void merge(const MagnitudeHistogram& o);
  int64_t count() const { return total_; }
  /// The exponent of least estimated squared error (rounding below the grid's range, clipping
  /// above it) among pow2_exponent(max) and the `below` exponents under it.
  int best_exponent(int max_exponent, int below = 2) const;

 private:
  static constexpr uint32_t kBins = 2048;  // float exponent (8 bits) x 3 mantissa bits
  double error(int e) const;
  std::vector<double> count_, sum_, sumsq_;
  int64_t total_ = 0;
};

/// A deterministic standard-normal sample of `t`'s shape (the quantizer's default
/// calibration input).
std::vector<float> normal_calibration_sample(const TensorType& t, uint32_t seed);

}  // namespace weft::compiler::graph
