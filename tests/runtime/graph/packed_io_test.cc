// The executor's slice-at-a-time copies (runtime/graph/packed_io.h) against the whole-tensor
// kernels: pack/unpack streams equal pack_activation/unpack_activation (partial batch and
// channel blocks included), an unpack into a slice of a larger tensor lands on the right
// elements along each axis, row windows of packed tensors read and write the right rows, and the packed im2col (int8 and quantizing an f32 input) and the
// packed pools equal the plain CPU kernel followed by a pack. Every write stays inside the
// packed tensor, and the staging stays far below the tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/graph/graph.h"
#include "runtime/graph/cpu_kernels.h"
#include "runtime/graph/packed_io.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;

std::vector<int8_t> pattern(int64_t n, int seed) {
  std::vector<int8_t> v(static_cast<size_t>(n));
  uint32_t s = 2463534242u + static_cast<uint32_t>(seed);
  for (auto& x : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x = static_cast<int8_t>(s & 0xff);
  }
  return v;
}

cg::TensorType packed(std::vector<int64_t> shape, int64_t bn, int64_t bc) {
  cg::TensorType t(cg::DType::I8, shape);
  t.layout = cg::Layout::blocked(bn, bc);
  return t;
}

// A writer into `mem` that checks bounds.
PackedWriter into(std::vector<int8_t>& mem) {
  return [&mem](int64_t off, const int8_t* d, int64_t b) {
    ASSERT_GE(off, 0);
    ASSERT_LE(off + b, static_cast<int64_t>(mem.size()));
    std::memcpy(mem.data() + off, d, static_cast<size_t>(b));
  };
}

TEST(PackedIo, PackAndUnpackStreamsMatchTheWholeTensorKernels) {
  for (auto [shape, bn, bc] : std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
           {{3, 20, 5, 7}, 2, 16}, {{1, 64, 56, 56}, 1, 16}, {{8, 150, 4, 9}, 8, 8}, {{1, 1000}, 1, 16},
           {{37, 50}, 8, 16}, {{197, 768}, 1, 16}}) {  // matrices: a dense layer's rows
    const cg::TensorType t = packed(shape, bn, bc);
    const auto plain = pattern(t.elements(), 1);
    std::vector<int8_t> want(static_cast<size_t>(t.stored_bytes())), got(want.size(), 55);
    pack_activation(t, bn, bc, plain.data(), want.data());
    const int64_t staging = pack_stream(t, plain.data(), into(got));
    EXPECT_EQ(got, want) << t.str();
    EXPECT_LE(staging, std::max<int64_t>(64 << 10, t.elements() / t.shape[0] / t.shape[1] * bn * bc));
    std::vector<int8_t> back(plain.size(), 0);
    unpack_stream(t, [&](int64_t off, int8_t* d, int64_t b) { std::memcpy(d, got.data() + off, b); },
                  {back.data(), t.shape, 0, 0});
    EXPECT_EQ(back, plain) << t.str();
  }
}

// Unpacks `t` (blocks bn x bc) into a destination 4 longer along each axis in turn, at 3: every
// element lands at its place in the slice, nothing outside it is written.
void expect_unpacks_into_slices(const cg::TensorType& t, int64_t bn, int64_t bc, int seed) {
  const auto plain = pattern(t.elements(), seed);
  std::vector<int8_t> p(static_cast<size_t>(t.stored_bytes()));
  pack_activation(t, bn, bc, plain.data(), p.data());
  const int64_t rank = t.rank();
  for (int64_t axis = 0; axis < rank; ++axis) {
    std::vector<int64_t> big = t.shape;
    big[axis] += 4;
    const int64_t at = 3;
    int64_t n = 1;
    for (int64_t d : big) n *= d;
    std::vector<int8_t> dst(static_cast<size_t>(n), 99);
    unpack_stream(t, [&](int64_t off, int8_t* d, int64_t b) { std::memcpy(d, p.data() + off, b); },
                  {dst.data(), big, axis, at});
    int64_t written = 0;
    for (int64_t f = 0; f < n; ++f) {
      std::vector<int64_t> i(static_cast<size_t>(rank));  // f as an index of `big`
      for (int64_t d = rank - 1, r = f; d >= 0; --d) {
        i[d] = r % big[d];
        r /= big[d];
      }
      const int8_t v = dst[static_cast<size_t>(f)];
      if (i[axis] < at || i[axis] >= at + t.shape[axis]) {
        EXPECT_EQ(v, 99) << t.str() << " axis " << axis << " wrote outside its slice";
        continue;
      }
      i[axis] -= at;
      int64_t src = 0;  // the same element in the plain tensor
      for (int64_t d = 0; d < rank; ++d) src = src * t.shape[d] + i[d];
      ++written;
      EXPECT_EQ(v, plain[static_cast<size_t>(src)]) << t.str() << " axis " << axis;
    }
    EXPECT_EQ(written, t.elements());
  }
}

TEST(PackedIo, UnpackIntoASliceAlongEachAxis) { expect_unpacks_into_slices(packed({2, 20, 3, 5}, 2, 16), 2, 16, 2); }

// A matrix (a dense layer's rows, unpacked a row of a block at a time) into a slice along
// either axis: a Concat's part of rows or of columns.
TEST(PackedIo, UnpackAMatrixIntoASliceAlongEachAxis) {
  expect_unpacks_into_slices(packed({13, 40}, 4, 16), 4, 16, 3);
}

// rows_of: a tensor of `rows` rows read from / written to rows [y0, y0 + rows) of every plane of
// a bigger packed tensor; copy_into: a plain tensor into a slice.
TEST(PackedIo, RowWindowsAndSliceCopies) {
  const cg::TensorType whole = packed({1, 40, 9, 5}, 1, 16), part = packed({1, 40, 2, 5}, 1, 16);
  const int64_t row = 5 * 16;
  std::vector<int8_t> big(static_cast<size_t>(whole.stored_bytes()));
  const auto plain = pattern(whole.elements(), 6);
  pack_activation(whole, 1, 16, plain.data(), big.data());
  // Read rows [6, 8) as a 2-row tensor (a halo), in chunks that cross planes.
  PackedReader whole_read = [&](int64_t off, int8_t* d, int64_t b) {
    ASSERT_LE(off + b, static_cast<int64_t>(big.size()));
    std::memcpy(d, big.data() + off, b);
  };
  std::vector<int8_t> got(static_cast<size_t>(part.elements()));
  unpack_stream(part, rows_of(whole_read, row, 2, 9, 6), {got.data(), part.shape, 0, 0});
  for (int64_t c = 0; c < 40; ++c)
    for (int64_t i = 0; i < 10; ++i)
      EXPECT_EQ(got[static_cast<size_t>(c * 10 + i)], plain[static_cast<size_t>((c * 9 + 6) * 5 + i)]);
  // Write a 2-row tensor into rows [3, 5); the other rows stay.
  const auto rows = pattern(part.elements(), 7);
  std::vector<int8_t> before = big;
  pack_stream(part, rows.data(), rows_of(into(big), row, 2, 9, 3));
  std::vector<int8_t> back(plain.size());
  unpack_activation(whole, 1, 16, big.data(), back.data());
  for (int64_t c = 0; c < 40; ++c)
    for (int64_t y = 0; y < 9; ++y)
      for (int64_t x = 0; x < 5; ++x) {
        const size_t at = static_cast<size_t>((c * 9 + y) * 5 + x);
        EXPECT_EQ(back[at], y >= 3 && y < 5 ? rows[static_cast<size_t>((c * 2 + y - 3) * 5 + x)] : plain[at]);
      }
  // copy_into: a [1, 40, 2, 5] tensor into rows [7, 9) of a [1, 40, 9, 5] one.
  std::vector<int8_t> dst(plain.begin(), plain.end());
  copy_into(rows.data(), part.shape, {dst.data(), whole.shape, 2, 7});
  for (int64_t c = 0; c < 40; ++c)
    for (int64_t y = 0; y < 9; ++y)
      for (int64_t x = 0; x < 5; ++x) {
        const size_t at = static_cast<size_t>((c * 9 + y) * 5 + x);
        EXPECT_EQ(dst[at], y >= 7 ? rows[static_cast<size_t>((c * 2 + y - 7) * 5 + x)] : plain[at]);
      }
}

// Im2Col node reading `x` (int8 or f32) into a [N, C*K*K + consts, rows, W'] band.
struct Im2ColCase {
  cg::Graph g;
  cg::NodeId node = cg::kNone;
};

Im2ColCase im2col_case(cg::DType in, int64_t N, int64_t bn, int64_t bc) {
  Im2ColCase c;
  cg::TensorType xt(in, {N, 3, 23, 21});
  if (in == cg::DType::I8) xt.quant.scale = {0.125f};
  const cg::ValueId x = c.g.add_input("x", xt);
  cg::NodeFacts f;
  f.kernel = 7;
  f.stride = 2;
  f.gather_pads = std::vector<int64_t>{3, 3, 3, 3};
  f.y0 = 3;
  f.out_h = 40;
  f.out_w = 11;
  f.consts = std::vector<int64_t>{1, 64, 64};
  f.layout_n = bn;
  f.layout_c = bc;
  cg::Attrs a;
  if (in == cg::DType::F32) a["out_scale"] = 0.125;
  const cg::ValueId y = c.g.add_op(cg::OpKind::Im2Col, "im2col", {x}, a, f);
  c.node = c.g.value(y).producer;
  return c;
}

TEST(PackedIo, Im2ColPackedEqualsIm2ColThenPack) {
  for (auto [N, bn, bc] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 16}, {3, 2, 8}}) {
    // int8 input.
    Im2ColCase c = im2col_case(cg::DType::I8, N, bn, bc);
    const cg::Node& n = c.g.node(c.node);
    const cg::TensorType& yt = c.g.value(n.outputs[0]).type;
    EXPECT_EQ(yt.shape, (std::vector<int64_t>{N, 150, 40, 11}));  // rows past the input: zeros; several row chunks
    const auto x = pattern(c.g.value(n.inputs[0]).type.elements(), 3);
    // The plain kernel on a plain copy of the node.
    cg::Node plain_node = n;
    plain_node.facts.layout_n = plain_node.facts.layout_c = std::nullopt;
    cg::Graph pg = c.g;
    cg::TensorType pt = yt;
    pt.layout = cg::Layout::plain();
    pg.value(n.outputs[0]).type = pt;
    std::vector<int8_t> plain(static_cast<size_t>(yt.elements())), want(static_cast<size_t>(yt.stored_bytes()));
    run_cpu_node(pg, plain_node, {reinterpret_cast<const uint8_t*>(x.data())}, reinterpret_cast<uint8_t*>(plain.data()));
    pack_activation(yt, bn, bc, plain.data(), want.data());
    std::vector<int8_t> got(want.size(), 77);
    im2col_packed(c.g, n, x.data(), into(got));
    EXPECT_EQ(got, want) << "int8, batch " << N;
    // f32 input: the same as quantizing (weft.Quantize's rounding) and then gathering.
    Im2ColCase f = im2col_case(cg::DType::F32, N, bn, bc);
    std::vector<float> xf(x.size());
    for (size_t i = 0; i < x.size(); ++i) xf[i] = (x[i] + 0.5f * (i % 3 == 0) - 0.25f * (i % 5 == 0)) * 0.125f;
    xf[7] = 1e6f;   // saturates
    xf[8] = -1e6f;
    std::vector<int8_t> q(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      q[i] = static_cast<int8_t>(std::clamp<double>(std::nearbyint(std::ldexp(double(xf[i]), 3)), -128, 127));
    run_cpu_node(pg, plain_node, {reinterpret_cast<const uint8_t*>(q.data())}, reinterpret_cast<uint8_t*>(plain.data()));
    pack_activation(yt, bn, bc, plain.data(), want.data());
    std::fill(got.begin(), got.end(), 77);
    im2col_packed(f.g, f.g.node(f.node), xf.data(), into(got));
    EXPECT_EQ(got, want) << "f32, batch " << N;
  }
}

TEST(PackedIo, PoolsPackedEqualPoolThenPack) {
  for (cg::OpKind k : {cg::OpKind::MaxPool, cg::OpKind::AveragePool})
    for (auto [N, C, bn, bc] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{{1, 40, 1, 16}, {3, 8, 2, 8}}) {
      cg::Graph g;
      cg::TensorType xt(cg::DType::I8, {N, C, 13, 12});
      xt.quant.scale = {0.125f};
      const cg::ValueId x = g.add_input("x", xt);
      cg::Attrs a = {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
      if (k == cg::OpKind::AveragePool) a["out_scale"] = 0.25;
      const cg::ValueId yp = g.add_op(k, "pool", {x}, a);
      cg::NodeFacts f;
      f.layout_n = bn;
      f.layout_c = bc;
      const cg::ValueId yk = g.add_op(k, "pool.packed", {x}, a, f);
      const cg::TensorType& t = g.value(yk).type;
      ASSERT_EQ(t.layout, cg::Layout::blocked(bn, bc));
      const auto in = pattern(xt.elements(), 4);
      std::vector<int8_t> plain(static_cast<size_t>(g.value(yp).type.elements())),
          want(static_cast<size_t>(t.stored_bytes())), got(want.size(), 5);
      run_cpu_node(g, *g.producer(yp), {reinterpret_cast<const uint8_t*>(in.data())},
                   reinterpret_cast<uint8_t*>(plain.data()));
      pack_activation(t, bn, bc, plain.data(), want.data());
      pool_packed(g, *g.producer(yk), in.data(), into(got));
      EXPECT_EQ(got, want) << cg::op_name(k) << " batch " << N;
    }
}

}  // namespace
}  // namespace weft::rt::graph
