// Plain row-major matrices to the blocked layouts the accelerator reads, and back. A matrix
// of R x C elements becomes [RB][CB][BR][BC]: RB x CB blocks of BR x BC elements, zero-padded
// where R or C is not a multiple of the block or falls short of RB x BR / CB x BC.
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/errors.h"

namespace weft::rt {

/// Block geometry of a packed matrix.
struct BlockedShape {
  int64_t rows, cols;              // logical size
  int64_t block_rows, block_cols;  // one block
  int64_t row_blocks, col_blocks;  // padded size in blocks
  int64_t elements() const { return row_blocks * col_blocks * block_rows * block_cols; }
  /// Offset of element (r, c) in the packed array.
  int64_t offset(int64_t r, int64_t c) const {
    return ((r / block_rows * col_blocks + c / block_cols) * block_rows + r % block_rows) *
               block_cols +
           c % block_cols;
  }
};

/// Packs a row-major matrix; InternalError when the sizes disagree.
template <typename T>
std::vector<T> pack_blocked(const std::vector<T>& m, const BlockedShape& s) {
  if (static_cast<int64_t>(m.size()) != s.rows * s.cols || s.rows > s.row_blocks * s.block_rows ||
      s.cols > s.col_blocks * s.block_cols) {
    throw InternalError("pack_blocked: the matrix does not fit its blocked shape");
  }
  std::vector<T> out(static_cast<size_t>(s.elements()), T{0});
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t c = 0; c < s.cols; ++c) out[s.offset(r, c)] = m[r * s.cols + c];
  }
  return out;
}

/// The row-major matrix held in a packed array (padding dropped).
template <typename T>
std::vector<T> unpack_blocked(const T* packed, const BlockedShape& s) {
  std::vector<T> out(static_cast<size_t>(s.rows * s.cols));
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t c = 0; c < s.cols; ++c) out[r * s.cols + c] = packed[s.offset(r, c)];
  }
  return out;
}

}  // namespace weft::rt
