// Test support: reference results computed from DESIGN.md §3 alone, never from simulator
// code, plus deterministic test data and the tiled DRAM layouts (INP [BATCH][BLOCK_IN],
// WGT [BLOCK_OUT][BLOCK_IN], ACC/OUT [BATCH][BLOCK_OUT] per element) that tests need to
// turn plain matrices into LOAD-able tensors and back.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "tests/support/program_builder.h"

namespace weft::test {

/// A dense row-major matrix.
template <typename T>
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<T> data;

  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<size_t>(r * c), T{}) {}
  T& at(int64_t r, int64_t c) { return data[static_cast<size_t>(r * cols + c)]; }
  const T& at(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * cols + c)]; }
  bool operator==(const Matrix& o) const {
    return rows == o.rows && cols == o.cols && data == o.data;
  }
};
/// GoogleTest printer: the shape and every entry, row by row.
template <typename T>
void PrintTo(const Matrix<T>& m, std::ostream* os) {
  *os << m.rows << "x" << m.cols << " {";
  for (int64_t r = 0; r < m.rows; ++r) {
    *os << (r ? "; " : "");
    for (int64_t c = 0; c < m.cols; ++c) *os << (c ? " " : "") << int64_t{m.at(r, c)};
  }
  *os << "}";
}

using Int8Matrix = Matrix<int8_t>;
using Int32Matrix = Matrix<int32_t>;

/// `count` int8 values from a fixed-seed generator, covering the whole range -128..127.
std::vector<int8_t> random_int8(int64_t count, uint32_t seed);
/// `count` int32 values uniformly in [lo, hi] from a fixed-seed generator.
std::vector<int32_t> random_int32(int64_t count, uint32_t seed, int32_t lo, int32_t hi);
/// A rows x cols matrix of random_int8 values.
Int8Matrix random_matrix(int64_t rows, int64_t cols, uint32_t seed);

/// Two's-complement wrap of an integer to 32 bits.
int32_t wrap32(int64_t v);
/// The low 8 bits of an accumulator value, as STORE writes them.
int8_t narrow8(int32_t v);
/// narrow8 of every value.
std::vector<int8_t> narrow8(const std::vector<int32_t>& v);

/// C = A * W^T with int32 wrap-around: C[m][n] = sum_k A[m][k] * W[n][k].
Int32Matrix ref_matmul(const Int8Matrix& a, const Int8Matrix& w);
/// One GEMM micro-op on single elements: acc[b][o] += sum_c inp[b][c] * wgt[o][c] (wrapping).
void ref_gemm_elem(const isa::Layout& l, const int8_t* inp, const int8_t* wgt, int32_t* acc);
/// One tensor-ALU lane: MIN/MAX signed, ADD/MUL wrapping at 32 bits, SHR by the low 5 bits of
/// b read as a signed number (a negative amount shifts left).
int32_t ref_alu(isa::AluOp op, int32_t a, int32_t b);

/// For each element of the dense padded tile a LOAD writes (row-major, (y0+y+y1) x
/// (x0+x+x1)), the DRAM element index (relative to dram_base) it copies, or -1 for padding.
std::vector<int64_t> ref_load_sources(int64_t y_size, int64_t x_size, int64_t x_stride,
                                      const Pads& pads);

/// An (MT*BATCH) x (KT*BLOCK_IN) matrix as INP elements, tile (m, k) at element m*KT + k.
std::vector<int8_t> to_inp_tiles(const isa::Layout& l, const Int8Matrix& a);
/// An (NT*BLOCK_OUT) x (KT*BLOCK_IN) matrix as WGT elements, tile (n, k) at element n*KT + k.
std::vector<int8_t> to_wgt_tiles(const isa::Layout& l, const Int8Matrix& w);
/// An (MT*BATCH) x (NT*BLOCK_OUT) matrix as ACC lanes, tile (m, n) at element m*NT + n.
std::vector<int32_t> to_acc_tiles(const isa::Layout& l, const Int32Matrix& c);
/// The inverse of to_acc_tiles for OUT bytes: MT x NT elements back to a matrix.
Int8Matrix from_out_tiles(const isa::Layout& l, const std::vector<int8_t>& out, int64_t mt,
                          int64_t nt);
/// The inverse of to_acc_tiles: MT x NT ACC elements back to a matrix.
Int32Matrix from_acc_tiles(const isa::Layout& l, const std::vector<int32_t>& acc, int64_t mt,
                           int64_t nt);
/// narrow8 of every entry.
Int8Matrix narrow8(const Int32Matrix& c);

}  // namespace weft::test
