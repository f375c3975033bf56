// Tensor values on the host as doubles (exact for every element type the CPU and GPU operators
// take) and their bytes in an element type: the single-operator runner's random inputs, its
// conversions to and from kernel buffers, and .npy files.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "compiler/ir/ir.h"
#include "runtime/io/npy.h"

namespace weft::rt {

/// The number of elements of a tensor of `shape`.
int64_t elements_of(const std::vector<int64_t>& shape);

/// `n` random values of `t` from `rng`: float32 uniform in [-1, 1]; float16 in eighths of
/// [-1, 1] (exact in half precision, so products and their float32 sums are exact); int8 any
/// byte.
std::vector<double> random_values(int64_t n, compiler::ir::DType t, std::mt19937& rng);

/// The bytes of `v` as elements of `t` (float32, float16, int8 or int32).
std::vector<uint8_t> to_bytes(const std::vector<double>& v, compiler::ir::DType t);
/// Elements of `t` (float32, int8 or int32) as doubles.
std::vector<double> from_bytes(const std::vector<uint8_t>& b, compiler::ir::DType t);

/// `v` as a .npy array: int8 and int32 as they are, floats as float32.
NpyArray npy_of(std::vector<int64_t> shape, const std::vector<double>& v, compiler::ir::DType t);

/// Casts each value to T.
template <typename T>
std::vector<T> values_as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace weft::rt
