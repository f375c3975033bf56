// NumPy .npy files (format version 1.0): the plain arrays `weft run` writes with --save so a
// user can check results with numpy.load, whatever layout the device used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

/// Element types weft reads and writes: int8 ("|i1"), int32 ("<i4"), float32 ("<f4"), and
/// uint8 ("|u1", e.g. images fed to a model whose input is uint8).
enum class NpyType { kInt8, kInt32, kFloat32, kUint8 };

/// A C-order array: shape and little-endian element bytes.
struct NpyArray {
  NpyType type = NpyType::kInt8;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Bytes of one element.
int npy_elem_bytes(NpyType t);

/// Encodes an array as a .npy file; InternalError when data does not match the shape.
std::vector<uint8_t> encode_npy(const NpyArray& a);
/// Decodes a .npy file of one of the supported types in C order; UserError naming `what`
/// (e.g. the path) for anything else or a truncated file.
NpyArray decode_npy(const std::vector<uint8_t>& bytes, const std::string& what);

/// Helpers for the common cases.
NpyArray npy_int8(std::vector<int64_t> shape, const std::vector<int8_t>& values);
NpyArray npy_int32(std::vector<int64_t> shape, const std::vector<int32_t>& values);
NpyArray npy_uint8(std::vector<int64_t> shape, const std::vector<uint8_t>& values);

}  // namespace weft::rt
