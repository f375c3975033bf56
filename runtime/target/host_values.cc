// Host tensor values and their bytes; see host_values.h.
#include "runtime/target/host_values.h"

#include <cstring>

#include "hardware/isa/errors.h"
#include "runtime/target/half.h"

namespace weft::rt {

using compiler::ir::DType;

int64_t elements_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<double> random_values(int64_t n, DType t, std::mt19937& rng) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<float> f(-1.0f, 1.0f);
  for (double& x : v) {
    if (t == DType::kFloat32)
      x = f(rng);
    else if (t == DType::kFloat16)
      x = static_cast<int>(rng() % 17) / 8.0 - 1.0;
    else
      x = static_cast<int8_t>(rng());
  }
  return v;
}

std::vector<uint8_t> to_bytes(const std::vector<double>& v, DType t) {
  std::vector<uint8_t> b(v.size() * static_cast<size_t>(compiler::ir::dtype_bits(t) / 8));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::kFloat32) {
      const float f = static_cast<float>(v[i]);
      std::memcpy(&b[i * 4], &f, 4);
    } else if (t == DType::kFloat16) {
      const uint16_t h = float_to_half(static_cast<float>(v[i]));
      std::memcpy(&b[i * 2], &h, 2);
    } else if (t == DType::kInt32) {
      const int32_t x = static_cast<int32_t>(v[i]);
      std::memcpy(&b[i * 4], &x, 4);
    } else if (t == DType::kInt8) {
      b[i] = static_cast<uint8_t>(static_cast<int8_t>(v[i]));
    } else {
      throw InternalError(std::string("to_bytes: no host values of ") +
                          compiler::ir::dtype_name(t));
    }
  }
  return b;
}

std::vector<double> from_bytes(const std::vector<uint8_t>& b, DType t) {
  const size_t size = static_cast<size_t>(compiler::ir::dtype_bits(t) / 8);
  std::vector<double> v(b.size() / size);
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::kFloat32) {
      float f;
      std::memcpy(&f, &b[i * 4], 4);
      v[i] = f;
    } else if (t == DType::kInt32) {
      int32_t x;
      std::memcpy(&x, &b[i * 4], 4);
      v[i] = x;
    } else if (t == DType::kInt8) {
      v[i] = static_cast<int8_t>(b[i]);
    } else {
      throw InternalError(std::string("from_bytes: no host values of ") +
                          compiler::ir::dtype_name(t));
    }
  }
  return v;
}

NpyArray npy_of(std::vector<int64_t> shape, const std::vector<double>& v, DType t) {
  NpyArray a;
  a.shape = std::move(shape);
  if (t == DType::kInt8 || t == DType::kInt32) {
    a.type = t == DType::kInt8 ? NpyType::kInt8 : NpyType::kInt32;
    a.data = to_bytes(v, t);
  } else {
    a.type = NpyType::kFloat32;
    a.data = to_bytes(v, DType::kFloat32);
  }
  return a;
}

}  // namespace weft::rt
