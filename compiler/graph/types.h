// Tensor types of the graph IR: element type, logical shape (always in the operator's logical
// order, e.g. NCHW for activations, OIHW for conv weights), physical layout (plain or blocked
// NCHW{n}n{c}c, the accelerator's packed form) and quantization parameters.
//
// Quantization follows ONNX: real = scale * (q - zero_point). Weft's own quantizer only makes
// power-of-two scales (scale = 2^exponent), so that requantizing is the accelerator's
// shift/add/clip epilogue; imported QDQ models may carry any positive scale. Per tensor when
// `scale` has one element, per channel along `axis` otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::compiler::graph {

/// Element types.
enum class DType { F32, I8, I32 };

/// "f32", "i8", "i32".
const char* dtype_name(DType t);
/// Bytes per element.
int64_t dtype_bytes(DType t);

/// Physical layout. Plain: row-major in the logical order. Blocked: the two leading axes are
/// split into blocks of `n` (batch) and `c` (channels), i.e. for rank 4
/// [N/n][C/c][H][W][n][c] (NCHW{n}n{c}c), for rank 2 [N/n][C/c][n][c]; the axes are padded with
/// zeros to whole blocks.
struct Layout {
  enum Kind { Plain, Blocked };
  Kind kind = Plain;
  int64_t n = 1, c = 1;
  static Layout plain() { return {}; }
  static Layout blocked(int64_t n, int64_t c) { return {Blocked, n, c}; }
  bool operator==(const Layout& o) const {
    return kind == o.kind && (kind == Plain || (n == o.n && c == o.c));
  }
  bool operator!=(const Layout& o) const { return !(*this == o); }
};

/// Quantization parameters (empty `scale`: not quantized).
struct QuantParams {
  std::vector<float> scale;          // one (per tensor) or one per channel along `axis`
  std::vector<int32_t> zero_point;   // same count as scale (or empty: all zero)
  int axis = 1;                      // channel axis when per channel
  bool present() const { return !scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
  /// True when every scale is an exact power of two and every zero point is 0.
  bool is_pow2() const;
  /// log2 of scale i (requires is_pow2()).
  int exponent(size_t i = 0) const;
  int32_t zero(size_t i = 0) const { return zero_point.empty() ? 0 : zero_point[i]; }
  /// A per-tensor power-of-two scale 2^exponent, zero point 0.
  static QuantParams pow2(int exponent);
  /// Per-channel power-of-two scales along `axis`.
  static QuantParams pow2_per_channel(const std::vector<int>& exponents, int axis);
  bool operator==(const QuantParams& o) const {
    return scale == o.scale && zero_point == o.zero_point && (!per_channel() || axis == o.axis);
  }
  bool operator!=(const QuantParams& o) const { return !(*this == o); }
};

/// The type of one tensor value.
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // logical
  Layout layout;
  QuantParams quant;

  TensorType() = default;
  TensorType(DType t, std::vector<int64_t> s) : dtype(t), shape(std::move(s)) {}
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// Logical element count.
  int64_t elements() const;
  /// Elements in memory (blocked layouts pad the two leading axes to whole blocks).
  int64_t stored_elements() const;
  int64_t stored_bytes() const { return stored_elements() * dtype_bytes(dtype); }
  /// e.g. "i8[1,64,56,56] NCHW1n16c q=2^-4" .
  std::string str() const;
  bool operator==(const TensorType& o) const {
    return dtype == o.dtype && shape == o.shape && layout == o.layout && quant == o.quant;
  }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};

/// The most elements a tensor may have (2^40, far beyond any network's): a model file may claim
/// any dimensions, and size arithmetic on more would overflow 64 bits.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

/// The element count of `shape` into `*count`; false when a dimension is negative or the count
/// exceeds kMaxTensorElements (computed without overflow).
bool count_elements(const std::vector<int64_t>& shape, int64_t* count);

/// "[1,3,224,224]".
std::string shape_str(const std::vector<int64_t>& s);
/// "NCHW", "NCHW1n16c", "NC8n8c", "plain" (rank-dependent names).
std::string layout_str(const Layout& l, int64_t rank);

}  // namespace weft::compiler::graph
