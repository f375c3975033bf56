// .npy encoding and decoding; see npy.h.
#include "runtime/io/npy.h"

#include <cstdint>
#include <cstring>
#include <functional>

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

namespace {

// The header dictionary of a .npy file, as numpy writes it: a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }. Parsed strictly (three keys,
// each once) so that what a file holds can be named in the error.
struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  std::string shape_text;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::function<UserError(const std::string&)>& bad)
      : t_(text), bad_(bad) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      const std::string key = string_literal("a key");
      expect(':');
      skip();
      bool* seen = key == "descr"           ? &have_descr
                   : key == "fortran_order" ? &have_order
                   : key == "shape"         ? &have_shape
                                            : nullptr;
      if (!seen) throw bad_("the header has an unknown key '" + key + "'");
      if (*seen) throw bad_("the header names '" + key + "' twice");
      *seen = true;
      if (key == "descr") {
        h.descr = string_literal("the element type");
      } else if (key == "fortran_order") {
        h.fortran = boolean();
      } else {
        const size_t from = i_ + 1;
        h.shape = tuple();
        h.shape_text = t_.substr(from, i_ - 1 - from);
      }
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip();
      if (peek() != '}') throw bad_("the header is not a dictionary (',' or '}' expected)");
    }
    ++i_;
    skip();
    if (i_ != t_.size()) throw bad_("the header has text after its dictionary");
    if (!have_descr || !have_order || !have_shape) {
      throw bad_(std::string("the header has no '") +
                 (!have_descr ? "descr" : !have_order ? "fortran_order" : "shape") + "'");
    }
    return h;
  }

 private:
  char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  void skip() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    skip();
    if (peek() != c) throw bad_(std::string("the header is not a dictionary ('") + c + "' expected)");
    ++i_;
  }
  std::string string_literal(const std::string& what) {
    const char q = peek();
    if (q != '\'' && q != '"') throw bad_(what + " is not a quoted string");
    const size_t close = t_.find(q, i_ + 1);
    if (close == std::string::npos || close - i_ > 64) throw bad_(what + " is not a short string");
    std::string v = t_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    return v;
  }
  bool boolean() {
    if (t_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (t_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    throw bad_("'fortran_order' is not True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') break;
      size_t end = i_;
      while (end < t_.size() && t_[end] >= '0' && t_[end] <= '9') ++end;
      if (end == i_ || end - i_ > 18) throw bad_("the shape holds something other than sizes");
      dims.push_back(std::stoll(t_.substr(i_, end - i_)));
      i_ = end;
      skip();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ')') {
        throw bad_("the shape is not a tuple of sizes");
      }
    }
    ++i_;
    return dims;
  }

  const std::string& t_;
  const std::function<UserError(const std::string&)>& bad_;
  size_t i_ = 0;
};

// What a numpy type string means, for a message about one Weft does not read: "float64",
// "big-endian float32", "int64", ...
std::string describe_descr(const std::string& d) {
  if (d.size() < 3) return "'" + d + "'";
  const char order = d[0], kind = d[1];
  const std::string size = d.substr(2);
  // Up to four digits: the header is untrusted, and a longer size is no numpy type.
  if (size.size() > 4 || size.find_first_not_of("0123456789") != std::string::npos)
    return "'" + d + "'";
  const int bytes = std::stoi(size);
  std::string name;
  switch (kind) {
    case 'f': name = "float" + std::to_string(8 * bytes); break;
    case 'i': name = "int" + std::to_string(8 * bytes); break;
    case 'u': name = "uint" + std::to_string(8 * bytes); break;
    case 'c': name = "complex" + std::to_string(8 * bytes); break;
    case 'b': name = "bool"; break;
    case 'U': name = "unicode strings"; break;
    case 'S': name = "byte strings"; break;
    default: return "'" + d + "'";
  }
  if (order == '>' && bytes > 1) name = "big-endian " + name;
  return name + " ('" + d + "')";
}

}  // namespace

NpyArray decode_npy(const std::vector<uint8_t>& b, const std::string& what) {
  const std::function<UserError(const std::string&)> bad = [&](const std::string& why) {
    return UserError("'" + what + "' is not a supported .npy file: " + why);
  };
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0) throw bad("no NUMPY magic");
  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 (UTF-8 header) a 4-byte one.
  if (b[6] < 1 || b[6] > 3) {
    throw bad("format version " + std::to_string(b[6]) + "." + std::to_string(b[7]) +
              " (1.0, 2.0 and 3.0 are read)");
  }
  const size_t at = b[6] == 1 ? 10 : 12;
  if (b.size() < at) throw bad("truncated header");
  size_t len = b[8] | (size_t{b[9]} << 8);
  if (b[6] > 1) len |= (size_t{b[10]} << 16) | (size_t{b[11]} << 24);
  if (b.size() - at < len) throw bad("truncated header");
  const std::string h(b.begin() + static_cast<ptrdiff_t>(at),
                      b.begin() + static_cast<ptrdiff_t>(at + len));
  const Header header = HeaderParser(h, bad).parse();
  NpyArray a;
  a.shape = header.shape;
  const std::string& d = header.descr;
  if (d == "|i1" || d == "<i1" || d == ">i1") {
    a.type = NpyType::kInt8;
  } else if (d == "<i4") {
    a.type = NpyType::kInt32;
  } else if (d == "<f4") {
    a.type = NpyType::kFloat32;
  } else if (d == "|u1" || d == "<u1" || d == ">u1") {
    a.type = NpyType::kUint8;
  } else {
    throw bad("its elements are " + describe_descr(d) +
              "; int8, uint8, int32 and float32 (little-endian) are read (numpy: "
              "a.astype(np.float32))");
  }
  if (header.fortran) {
    throw bad("it is in Fortran (column-major) order; C order is read (numpy: "
              "np.ascontiguousarray(a))");
  }
  // The data the shape needs, without overflow: a product that does not fit 64 bits is refused
  // before it can wrap around to a size that matches the file (found by fuzz_npy).
  const uint64_t have = b.size() - at - len;
  uint64_t bytes = static_cast<uint64_t>(npy_elem_bytes(a.type));
  bool empty = false;
  for (int64_t dim : a.shape) empty = empty || dim == 0;
  if (!empty) {
    for (int64_t dim : a.shape) {
      if (static_cast<uint64_t>(dim) > UINT64_MAX / bytes) {
        throw bad("the shape '" + header.shape_text + "' is too large (more than 2^64 bytes)");
      }
      bytes *= static_cast<uint64_t>(dim);
    }
  } else {
    bytes = 0;
  }
  if (have != bytes) {
    throw bad("holds " + std::to_string(have) + " data bytes, the shape needs " +
              std::to_string(bytes) + " (" + std::to_string(a.shape.size()) + " dimensions (" +
              header.shape_text + ") of " + describe_descr(d) + ")");
  }
  a.data.assign(b.begin() + static_cast<ptrdiff_t>(at + len), b.end());
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
