// .npy encoding and decoding; see npy.h.
#include "runtime/io/npy.h"

#include <cstdint>
#include <cstring>

#include "hardware/isa/errors.h"

namespace weft::rt {

namespace {

const char kMagic[] = "\x93NUMPY";

const char* descr(NpyType t) {
  switch (t) {
    case NpyType::kInt8:
      return "|i1";
    case NpyType::kInt32:
      return "<i4";
    case NpyType::kFloat32:
      return "<f4";
    case NpyType::kUint8:
      return "|u1";
  }
  return "?";
}

// Elements of a shape; UINT64_MAX when the product does not fit (a shape such as
// (2^40, 2^40, 0) is empty, so zero is looked for first; found by fuzz_npy).
uint64_t count(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return UINT64_MAX;
  }
  return n;
}

template <typename T>
NpyArray make(NpyType t, std::vector<int64_t> shape, const std::vector<T>& v) {
  NpyArray a;
  a.type = t;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

}  // namespace

int npy_elem_bytes(NpyType t) { return t == NpyType::kInt8 || t == NpyType::kUint8 ? 1 : 4; }

std::vector<uint8_t> encode_npy(const NpyArray& a) {
  const uint64_t n = count(a.shape);
  if (n > a.data.size() || a.data.size() != n * npy_elem_bytes(a.type)) {
    throw InternalError("encode_npy: data size does not match the shape");
  }
  std::string header = std::string("{'descr': '") + descr(a.type) +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    header += std::to_string(a.shape[i]) + (a.shape.size() == 1 || i + 1 < a.shape.size() ? "," : "");
    if (i + 1 < a.shape.size()) header += " ";
  }
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

NpyArray decode_npy(const std::vector<uint8_t>& b, const std::string& what) {
  auto bad = [&](const std::string& why) -> UserError {
    return UserError("'" + what + "' is not a supported .npy file: " + why);
  };
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0) throw bad("no NUMPY magic");
  if (b[6] != 1) throw bad("format version " + std::to_string(b[6]) + " (1 is supported)");
  const size_t len = b[8] | (size_t{b[9]} << 8);
  if (b.size() < 10 + len) throw bad("truncated header");
  const std::string h(b.begin() + 10, b.begin() + 10 + static_cast<ptrdiff_t>(len));
  NpyArray a;
  if (h.find("'descr': '|i1'") != std::string::npos) {
    a.type = NpyType::kInt8;
  } else if (h.find("'descr': '<i4'") != std::string::npos) {
    a.type = NpyType::kInt32;
  } else if (h.find("'descr': '<f4'") != std::string::npos) {
    a.type = NpyType::kFloat32;
  } else if (h.find("'descr': '|u1'") != std::string::npos) {
    a.type = NpyType::kUint8;
  } else {
    throw bad("element type (int8, uint8, int32 and float32 are supported)");
  }
  if (h.find("'fortran_order': False") == std::string::npos) throw bad("not in C order");
  const size_t open = h.find("'shape': (");
  const size_t close = open == std::string::npos ? open : h.find(')', open);
  if (close == std::string::npos) throw bad("no shape");
  std::string dims = h.substr(open + 10, close - open - 10);
  size_t pos = 0;
  while (pos < dims.size()) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ',')) ++pos;
    if (pos >= dims.size()) break;
    size_t end = pos;
    while (end < dims.size() && dims[end] >= '0' && dims[end] <= '9') ++end;
    if (end == pos || end - pos > 12) throw bad("bad shape '" + dims + "'");
    a.shape.push_back(std::stoll(dims.substr(pos, end - pos)));
    pos = end;
  }
  // The data the shape needs, without overflow: a product that does not fit 64 bits is refused
  // before it can wrap around to a size that matches the file (found by fuzz_npy).
  const uint64_t have = b.size() - 10 - len;
  uint64_t bytes = static_cast<uint64_t>(npy_elem_bytes(a.type));
  bool empty = false;
  for (int64_t d : a.shape) empty = empty || d == 0;
  if (!empty) {
    for (int64_t d : a.shape) {
      if (static_cast<uint64_t>(d) > UINT64_MAX / bytes) {
        throw bad("the shape '" + dims + "' is too large (more than 2^64 bytes)");
      }
      bytes *= static_cast<uint64_t>(d);
    }
  } else {
    bytes = 0;
  }
  if (have != bytes) {
    throw bad("holds " + std::to_string(b.size() - 10 - len) + " data bytes, the shape needs " +
              std::to_string(bytes));
  }
  a.data.assign(b.begin() + 10 + static_cast<ptrdiff_t>(len), b.end());
  return a;
}

NpyArray npy_int8(std::vector<int64_t> shape, const std::vector<int8_t>& v) {
  return make(NpyType::kInt8, std::move(shape), v);
}
NpyArray npy_int32(std::vector<int64_t> shape, const std::vector<int32_t>& v) {
  return make(NpyType::kInt32, std::move(shape), v);
}
NpyArray npy_uint8(std::vector<int64_t> shape, const std::vector<uint8_t>& v) {
  return make(NpyType::kUint8, std::move(shape), v);
}

}  // namespace weft::rt
