// Reference math and tiled layouts for tests, written from DESIGN.md §3; see reference.h.
#include "tests/support/reference.h"

#include <random>
#include <stdexcept>

namespace weft::test {

std::vector<int8_t> random_int8(int64_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int8_t> v(static_cast<size_t>(count));
  // Raw generator bits: the distribution classes differ between standard libraries.
  for (int8_t& x : v) x = static_cast<int8_t>(static_cast<uint8_t>(gen() >> 24));
  return v;
}

std::vector<int32_t> random_int32(int64_t count, uint32_t seed, int32_t lo, int32_t hi) {
  std::mt19937_64 gen(seed);
  const uint64_t span = static_cast<uint64_t>(int64_t{hi} - int64_t{lo}) + 1;
  std::vector<int32_t> v(static_cast<size_t>(count));
  for (int32_t& x : v) x = static_cast<int32_t>(int64_t{lo} + static_cast<int64_t>(gen() % span));
  return v;
}

Int8Matrix random_matrix(int64_t rows, int64_t cols, uint32_t seed) {
  Int8Matrix m(rows, cols);
  m.data = random_int8(rows * cols, seed);
  return m;
}

int32_t wrap32(int64_t v) {
  const uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(v));
  return low >= 0x80000000u ? static_cast<int32_t>(int64_t{low} - (int64_t{1} << 32))
                            : static_cast<int32_t>(low);
}

int8_t narrow8(int32_t v) {
  const int64_t low = static_cast<int64_t>(static_cast<uint32_t>(v) & 0xFFu);
  return static_cast<int8_t>(low >= 128 ? low - 256 : low);
}

std::vector<int8_t> narrow8(const std::vector<int32_t>& v) {
  std::vector<int8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = narrow8(v[i]);
  return out;
}

Int32Matrix ref_matmul(const Int8Matrix& a, const Int8Matrix& w) {
  if (a.cols != w.cols) throw std::invalid_argument("ref_matmul: reduction sizes differ");
  Int32Matrix c(a.rows, w.rows);
  for (int64_t m = 0; m < a.rows; ++m) {
    for (int64_t n = 0; n < w.rows; ++n) {
      int64_t sum = 0;
      for (int64_t k = 0; k < a.cols; ++k) sum += int64_t{a.at(m, k)} * w.at(n, k);
      c.at(m, n) = wrap32(sum);
    }
  }
  return c;
}

void ref_gemm_elem(const isa::Layout& l, const int8_t* inp, const int8_t* wgt, int32_t* acc) {
  const int batch = l.config.batch(), bin = l.config.block_in(), bout = l.config.block_out();
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < bout; ++o) {
      int64_t sum = acc[b * bout + o];
      for (int c = 0; c < bin; ++c) sum += int64_t{inp[b * bin + c]} * wgt[o * bin + c];
      acc[b * bout + o] = wrap32(sum);
    }
  }
}

int32_t ref_alu(isa::AluOp op, int32_t a, int32_t b) {
  switch (op) {
    case isa::AluOp::kMin:
      return a <= b ? a : b;
    case isa::AluOp::kMax:
      return a >= b ? a : b;
    case isa::AluOp::kAdd:
      return wrap32(int64_t{a} + b);
    case isa::AluOp::kMul:
      return wrap32(int64_t{a} * b);
    case isa::AluOp::kShr: {
      int64_t amount = int64_t{b} & 31;  // low log2(32) bits ...
      if (amount >= 16) amount -= 32;    // ... read as a signed 5-bit number
      if (amount < 0) return wrap32(int64_t{a} * (int64_t{1} << -amount));
      // Arithmetic shift right = floor division by 2^amount.
      const int64_t d = int64_t{1} << amount;
      int64_t q = int64_t{a} / d;
      if (int64_t{a} % d != 0 && a < 0) --q;
      return static_cast<int32_t>(q);
    }
  }
  throw std::invalid_argument("ref_alu: bad ALU opcode");
}

std::vector<int64_t> ref_load_sources(int64_t y_size, int64_t x_size, int64_t x_stride,
                                      const Pads& pads) {
  const int64_t rows = pads.y0 + y_size + pads.y1, cols = pads.x0 + x_size + pads.x1;
  std::vector<int64_t> src(static_cast<size_t>(rows * cols), -1);
  for (int64_t y = 0; y < y_size; ++y) {
    for (int64_t x = 0; x < x_size; ++x) {
      src[static_cast<size_t>((pads.y0 + y) * cols + pads.x0 + x)] = y * x_stride + x;
    }
  }
  return src;
}

std::vector<int8_t> to_inp_tiles(const isa::Layout& l, const Int8Matrix& a) {
  const int batch = l.config.batch(), bin = l.config.block_in();
  const int64_t mt = a.rows / batch, kt = a.cols / bin;
  if (mt * batch != a.rows || kt * bin != a.cols) throw std::invalid_argument("to_inp_tiles");
  std::vector<int8_t> out;
  for (int64_t m = 0; m < mt; ++m) {
    for (int64_t k = 0; k < kt; ++k) {
      for (int b = 0; b < batch; ++b) {
        for (int c = 0; c < bin; ++c) out.push_back(a.at(m * batch + b, k * bin + c));
      }
    }
  }
  return out;
}

std::vector<int8_t> to_wgt_tiles(const isa::Layout& l, const Int8Matrix& w) {
  const int bout = l.config.block_out(), bin = l.config.block_in();
  const int64_t nt = w.rows / bout, kt = w.cols / bin;
  if (nt * bout != w.rows || kt * bin != w.cols) throw std::invalid_argument("to_wgt_tiles");
  std::vector<int8_t> out;
  for (int64_t n = 0; n < nt; ++n) {
    for (int64_t k = 0; k < kt; ++k) {
      for (int o = 0; o < bout; ++o) {
        for (int c = 0; c < bin; ++c) out.push_back(w.at(n * bout + o, k * bin + c));
      }
    }
  }
  return out;
}

std::vector<int32_t> to_acc_tiles(const isa::Layout& l, const Int32Matrix& c) {
  const int batch = l.config.batch(), bout = l.config.block_out();
  const int64_t mt = c.rows / batch, nt = c.cols / bout;
  if (mt * batch != c.rows || nt * bout != c.cols) throw std::invalid_argument("to_acc_tiles");
  std::vector<int32_t> out;
  for (int64_t m = 0; m < mt; ++m) {
    for (int64_t n = 0; n < nt; ++n) {
      for (int b = 0; b < batch; ++b) {
        for (int o = 0; o < bout; ++o) out.push_back(c.at(m * batch + b, n * bout + o));
      }
    }
  }
  return out;
}

namespace {
template <typename T>
Matrix<T> from_tiles(const isa::Layout& l, const std::vector<T>& v, int64_t mt, int64_t nt) {
  const int batch = l.config.batch(), bout = l.config.block_out();
  if (static_cast<int64_t>(v.size()) != mt * nt * batch * bout) {
    throw std::invalid_argument("from_tiles: size mismatch");
  }
  Matrix<T> c(mt * batch, nt * bout);
  size_t i = 0;
  for (int64_t m = 0; m < mt; ++m) {
    for (int64_t n = 0; n < nt; ++n) {
      for (int b = 0; b < batch; ++b) {
        for (int o = 0; o < bout; ++o) c.at(m * batch + b, n * bout + o) = v[i++];
      }
    }
  }
  return c;
}
}  // namespace

Int8Matrix from_out_tiles(const isa::Layout& l, const std::vector<int8_t>& out, int64_t mt,
                          int64_t nt) {
  return from_tiles(l, out, mt, nt);
}

Int32Matrix from_acc_tiles(const isa::Layout& l, const std::vector<int32_t>& acc, int64_t mt,
                           int64_t nt) {
  return from_tiles(l, acc, mt, nt);
}

Int8Matrix narrow8(const Int32Matrix& c) {
  Int8Matrix out(c.rows, c.cols);
  for (size_t i = 0; i < c.data.size(); ++i) out.data[i] = narrow8(c.data[i]);
  return out;
}

}  // namespace weft::test
