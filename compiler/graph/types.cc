// Tensor types: names, sizes and the printed form.
#include "compiler/graph/types.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::I8: return "i8";
    case DType::I32: return "i32";
  }
  return "?";
}

int64_t dtype_bytes(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::I8: return 1;
    case DType::I32: return 4;
  }
  return 0;
}

bool QuantParams::is_pow2() const {
  if (scale.empty()) return false;
  for (float s : scale) {
    if (!(s > 0)) return false;
    int e = 0;
    float m = std::frexp(s, &e);
    if (m != 0.5f) return false;
  }
  for (int32_t z : zero_point)
    if (z != 0) return false;
  return true;
}

int QuantParams::exponent(size_t i) const {
  int e = 0;
  float m = std::frexp(scale.at(i), &e);
  if (m != 0.5f) throw InternalError("QuantParams::exponent: scale is not a power of two");
  return e - 1;
}

QuantParams QuantParams::pow2(int exponent) {
  QuantParams q;
  q.scale = {std::ldexp(1.0f, exponent)};
  return q;
}

QuantParams QuantParams::pow2_per_channel(const std::vector<int>& exponents, int axis) {
  QuantParams q;
  for (int e : exponents) q.scale.push_back(std::ldexp(1.0f, e));
  q.axis = axis;
  return q;
}

bool count_elements(const std::vector<int64_t>& shape, int64_t* count) {
  for (int64_t d : shape)
    if (d < 0) return false;
  for (int64_t d : shape)
    if (d == 0) return *count = 0, true;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > kMaxTensorElements / d) return false;
    n *= d;
  }
  *count = n;
  return true;
}

int64_t TensorType::elements() const {
  // Empty first: the other sizes of an empty shape may multiply past int64.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorType::stored_elements() const {
  if (layout.kind == Layout::Plain || shape.size() < 2) return elements();
  auto up = [](int64_t v, int64_t b) { return (v + b - 1) / b * b; };
  int64_t n = up(shape[0], layout.n) * up(shape[1], layout.c);
  for (size_t i = 2; i < shape.size(); ++i) n *= shape[i];
  return n;
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
  o << "]";
  return o.str();
}

std::string layout_str(const Layout& l, int64_t rank) {
  std::string base = rank == 4 ? "NCHW" : rank == 2 ? "NC" : "plain";
  if (l.kind == Layout::Plain) return base;
  std::ostringstream o;
  o << base << l.n << "n" << l.c << "c";
  return o.str();
}

static std::string scale_str(float s) {
  int e = 0;
  float m = std::frexp(s, &e);
  std::ostringstream o;
  if (m == 0.5f)
    o << "2^" << (e - 1);
  else
    o << s;
  return o.str();
}

std::string TensorType::str() const {
  std::ostringstream o;
  o << dtype_name(dtype) << shape_str(shape);
  if (rank() == 4 || rank() == 2 || layout.kind != Layout::Plain)
    o << " " << layout_str(layout, rank());
  if (quant.present()) {
    if (!quant.per_channel()) {
      o << " q=" << scale_str(quant.scale[0]);
      if (quant.zero(0) != 0) o << "/zp" << quant.zero(0);
    } else {
      int lo = 1000, hi = -1000;
      bool pow2 = quant.is_pow2();
      if (pow2)
        for (size_t i = 0; i < quant.scale.size(); ++i) {
          lo = std::min(lo, quant.exponent(i));
          hi = std::max(hi, quant.exponent(i));
        }
      o << " q=per-channel(axis " << quant.axis << ", " << quant.scale.size();
      if (pow2) o << ", 2^" << lo << "..2^" << hi;
      o << ")";
    }
  }
  return o.str();
}

}  // namespace weft::compiler::graph
