// The bytes of a constant tensor: a buffer of its own, or a read-only view of memory that an
// owner keeps alive (the mapped model file a weight was read from, so that import need not copy
// a weight). Reads never copy; the first write to a view copies it into a buffer of its own.
// Copies of a view share the owner. The bytes are always aligned for their elements, as typed
// readers cast data() to float* or int32_t* (ConstData::f32): a view is only taken of aligned
// memory, and a buffer of its own is aligned as operator new aligns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace weft::compiler::graph {

class Bytes {
 public:
  Bytes() = default;
  Bytes(std::vector<uint8_t> v) : own_(std::move(v)) {}  // NOLINT: bytes of its own
  Bytes& operator=(std::vector<uint8_t> v) {
    own_ = std::move(v);
    drop_view();
    return *this;
  }

  /// A view of `n` bytes at `p`, valid while `owner` lives, where `p` is aligned to
  /// `element_bytes`; else a copy (ONNX does not align a weight's raw bytes in its file).
  static Bytes view(const uint8_t* p, size_t n, size_t element_bytes,
                    std::shared_ptr<const void> owner) {
    if (element_bytes > 1 && reinterpret_cast<uintptr_t>(p) % element_bytes != 0) {
      return Bytes(std::vector<uint8_t>(p, p + n));
    }
    Bytes b;
    b.view_ = p;
    b.view_size_ = n;
    b.owner_ = std::move(owner);
    return b;
  }

  const uint8_t* data() const { return owner_ ? view_ : own_.data(); }
  /// Writable bytes (a view is copied first).
  uint8_t* data() {
    own();
    return own_.data();
  }
  size_t size() const { return owner_ ? view_size_ : own_.size(); }
  bool empty() const { return size() == 0; }
  bool is_view() const { return owner_ != nullptr; }

  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  uint8_t operator[](size_t i) const { return data()[i]; }
  uint8_t& operator[](size_t i) { return data()[i]; }

  void resize(size_t n) {
    own();
    own_.resize(n);
  }
  void assign(const uint8_t* first, const uint8_t* last) {
    std::vector<uint8_t> v(first, last);  // before the view goes: [first, last) may be in it
    own_ = std::move(v);
    drop_view();
  }
  void assign(size_t n, uint8_t value) {
    drop_view();
    own_.assign(n, value);
  }

  bool operator==(const Bytes& o) const {
    return size() == o.size() && (size() == 0 || std::memcmp(data(), o.data(), size()) == 0);
  }
  bool operator!=(const Bytes& o) const { return !(*this == o); }

 private:
  void own() {
    if (!owner_) return;
    own_.assign(view_, view_ + view_size_);
    drop_view();
  }
  void drop_view() {
    owner_.reset();
    view_ = nullptr;
    view_size_ = 0;
  }

  std::vector<uint8_t> own_;
  const uint8_t* view_ = nullptr;
  size_t view_size_ = 0;
  std::shared_ptr<const void> owner_;  // set exactly when this is a view
};

}  // namespace weft::compiler::graph
