// The graph executor's LLVM CPU kernels (runtime/graph/llvm_kernels.h) against the plain C++
// loops of cpu_kernels.h, bit for bit, on random inputs: one graph of one node per kernel kind
// and parameter case (odd shapes, padding, negative and positive shifts, ties at the rounding
// points), then the whole int8 network path with and without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

#include "compiler/graph/interpret_kernels.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/resize.h"
#include "compiler/graph/transformer_kernels.h"
#include "runtime/graph/cpu_kernels.h"
#include "runtime/graph/executor.h"
#include "runtime/graph/llvm_kernels.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;

cg::TensorType i8(std::vector<int64_t> shape, int e) {
  cg::TensorType t(cg::DType::I8, std::move(shape));
  t.quant = cg::QuantParams::pow2(e);
  return t;
}

std::vector<uint8_t> random_bytes(const cg::TensorType& t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(static_cast<size_t>(t.stored_bytes()));
  if (t.dtype == cg::DType::F32) {
    // Reals on a grid of quarter steps at the output scale, so that ties occur, plus a few
    // far out of range.
    std::uniform_int_distribution<int> d(-700, 700);
    auto* f = reinterpret_cast<float*>(b.data());
    for (int64_t i = 0; i < t.elements(); ++i) f[i] = float(d(rng)) * 0.25f * 0.03125f;
    if (t.elements() > 3) f[0] = 1e6f, f[1] = -1e6f, f[2] = 3.99f;
  } else if (t.dtype == cg::DType::I32) {
    std::uniform_int_distribution<int32_t> d(-4000, 4000);
    auto* v = reinterpret_cast<int32_t*>(b.data());
    for (int64_t i = 0; i < t.elements(); ++i) v[i] = d(rng);
  } else {
    std::uniform_int_distribution<int> d(-128, 127);
    for (auto& x : b) x = static_cast<uint8_t>(d(rng));
  }
  return b;
}

// Runs the last node of `g` both ways on random inputs (graph inputs random, constants as
// they are) and expects the same bytes; `want_llvm` says whether an LLVM kernel must exist.
void expect_same(const cg::Graph& g, uint32_t seed, bool want_llvm = true) {
  const cg::Node& n = g.node(static_cast<cg::NodeId>(g.num_nodes() - 1));
  SCOPED_TRACE(n.name);
  auto k = make_llvm_node_kernel(g, n);
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  ASSERT_EQ(k != nullptr, want_llvm);
  if (!k) return;
  std::vector<std::vector<uint8_t>> store;
  std::vector<const uint8_t*> in;
  for (cg::ValueId v : n.inputs) {
    if (v == cg::kNone) {
      in.push_back(nullptr);
      continue;
    }
    const cg::Value& val = g.value(v);
    if (val.is_constant()) {
      in.push_back(val.data->bytes.data());
    } else {
      store.push_back(random_bytes(val.type, seed++));
      in.push_back(store.back().data());
    }
  }
  const auto& yt = g.value(n.outputs[0]).type;
  std::vector<uint8_t> want(static_cast<size_t>(yt.stored_bytes()), 0xAA),
      got(want.size(), 0x55);
  run_cpu_node(g, n, in, want.data());
  run_llvm_node(*k, in, got.data());
  EXPECT_EQ(got, want) << llvm_node_kernel_key(*k);
  // The same shape again takes the cached kernel.
  const int before = llvm_kernel_stats().compiled;
  auto again = make_llvm_node_kernel(g, n);
  EXPECT_EQ(llvm_kernel_stats().compiled, before);
}

cg::Graph one_node(cg::OpKind kind, const std::vector<cg::TensorType>& ins, const cg::TensorType& out,
                   const cg::Attrs& attrs = {}) {
  cg::Graph g("one");
  std::vector<cg::ValueId> vs;
  for (size_t i = 0; i < ins.size(); ++i) vs.push_back(g.add_input("x" + std::to_string(i), ins[i]));
  g.add_node(kind, "node", vs, attrs, {out});
  return g;
}

TEST(LlvmKernels, QuantizeRoundsHalfToEvenAndSaturates) {
  for (int e : {-5, -3, 0, 2}) {
    cg::TensorType x(cg::DType::F32, {1, 3, 17, 9});
    expect_same(one_node(cg::OpKind::Quantize, {x}, i8({1, 3, 17, 9}, e)), 1 + e);
  }
}

TEST(LlvmKernels, Dequantize) {
  for (int e : {-7, 0, 3}) {
    cg::TensorType y(cg::DType::F32, {2, 1000});
    expect_same(one_node(cg::OpKind::Dequantize, {i8({2, 1000}, e)}, y), 5);
  }
}

TEST(LlvmKernels, ReluAndClip) {
  expect_same(one_node(cg::OpKind::Relu, {i8({1, 5, 7, 7}, -4)}, i8({1, 5, 7, 7}, -4)), 2);
  expect_same(one_node(cg::OpKind::Clip, {i8({1, 64, 8, 8}, -4)}, i8({1, 64, 8, 8}, -4),
                       {{"min", -20.0}, {"max", 96.0}}),
              3);
}

TEST(LlvmKernels, RequantizeBothDirections) {
  for (int eo : {-6, -4, -3, -1, 4}) {
    const std::vector<int64_t> s = {1, 3, 11, 13};
    expect_same(one_node(cg::OpKind::Requantize, {i8(s, -4)}, i8(s, eo)), 7 + eo);
  }
}

TEST(LlvmKernels, AddRequantizesEachSide) {
  const std::vector<int64_t> s = {2, 8, 14, 14};
  const std::vector<std::tuple<int, int, int>> cases = {
      {-4, -4, -4}, {-5, -3, -3}, {-3, -5, -4}, {-6, -2, -7}, {-4, -4, 20}, {-30, -2, -3}};
  for (auto [ea, eb, eo] : cases) {
    expect_same(one_node(cg::OpKind::Add, {i8(s, ea), i8(s, eb)}, i8(s, eo)), 11);
  }
}

TEST(LlvmKernels, MaxPool) {
  // ResNet-18's stem pool, an unpadded one, and an odd one whose windows run off the edge.
  expect_same(one_node(cg::OpKind::MaxPool, {i8({1, 8, 112, 112}, -3)}, i8({1, 8, 56, 56}, -3),
                       {{"kernel_shape", std::vector<int64_t>{3, 3}},
                        {"strides", std::vector<int64_t>{2, 2}},
                        {"pads", std::vector<int64_t>{1, 1, 1, 1}}}),
              21);
  expect_same(one_node(cg::OpKind::MaxPool, {i8({2, 3, 8, 8}, -3)}, i8({2, 3, 4, 4}, -3),
                       {{"kernel_shape", std::vector<int64_t>{2, 2}},
                        {"strides", std::vector<int64_t>{2, 2}}}),
              22);
  expect_same(one_node(cg::OpKind::MaxPool, {i8({1, 3, 9, 10}, -3)}, i8({1, 3, 5, 4}, -3),
                       {{"kernel_shape", std::vector<int64_t>{3, 4}},
                        {"strides", std::vector<int64_t>{2, 3}},
                        {"pads", std::vector<int64_t>{1, 0, 1, 2}}}),
              23);
}

TEST(LlvmKernels, AveragePoolRoundsHalfUp) {
  for (int64_t incl : {0, 1})
    for (int eo : {-5, -3, -1}) {
      expect_same(one_node(cg::OpKind::AveragePool, {i8({1, 4, 9, 9}, -3)}, i8({1, 4, 5, 5}, eo),
                           {{"kernel_shape", std::vector<int64_t>{3, 3}},
                            {"strides", std::vector<int64_t>{2, 2}},
                            {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                            {"count_include_pad", incl}}),
                  31 + eo);
    }
}

TEST(LlvmKernels, AveragePoolOverLongRows) {
  expect_same(one_node(cg::OpKind::AveragePool, {i8({1, 2, 8, 64}, -3)}, i8({1, 2, 8, 64}, -3),
                       {{"kernel_shape", std::vector<int64_t>{3, 3}},
                        {"strides", std::vector<int64_t>{1, 1}},
                        {"pads", std::vector<int64_t>{1, 1, 1, 1}}}),
              35);
}

TEST(LlvmKernels, GlobalAveragePool) {
  for (int eo : {-6, -4, -2})
    expect_same(one_node(cg::OpKind::GlobalAveragePool, {i8({2, 64, 7, 7}, -4)},
                         i8({2, 64, 1, 1}, eo)),
                41 + eo);
}

// QConv/QDense on the CPU (the fallback the partition uses for per-channel shifts or tiny
// layers): weights and biases constant, a residual, per-channel shifts, padding and strides.
cg::Graph qconv_graph(bool residual, bool per_channel, int64_t stride, int64_t pad, bool relu,
                      int64_t W = 9) {
  cg::Graph g("qconv");
  const int64_t C = 5, O = 6, H = 11, K = 3;
  const int64_t OH = (H + 2 * pad - K) / stride + 1, OW = (W + 2 * pad - K) / stride + 1;
  const cg::ValueId x = g.add_input("x", i8({1, C, H, W}, -4));
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> d8(-128, 127), db(-3000, 3000);
  std::vector<int8_t> w(static_cast<size_t>(O * C * K * K));
  for (auto& v : w) v = static_cast<int8_t>(d8(rng));
  std::vector<int32_t> b(O);
  for (auto& v : b) v = db(rng);
  const cg::ValueId wv = g.add_constant("w", i8({O, C, K, K}, -7), cg::ConstData::from_i8(w));
  cg::TensorType bt(cg::DType::I32, {O});
  const cg::ValueId bv = g.add_constant("b", bt, cg::ConstData::from_i32(b));
  std::vector<cg::ValueId> ins = {x, wv, bv};
  if (residual) ins.push_back(g.add_input("r", i8({1, O, OH, OW}, -4)));
  cg::Attrs a = {{"strides", std::vector<int64_t>{stride, stride}},
                 {"pads", std::vector<int64_t>{pad, pad, pad, pad}}};
  cg::NodeFacts f;
  f.relu = relu;
  if (per_channel)
    f.shifts = std::vector<int64_t>{7, 8, 9, 10, 6, 11};
  else
    f.shift = 9;
  g.add_node(cg::OpKind::QConv, "qconv", ins, a, {i8({1, O, OH, OW}, -4)}, {}, f);
  return g;
}

TEST(LlvmKernels, QConvFallback) {
  for (bool residual : {false, true})
    for (bool per_channel : {false, true})
      for (auto [stride, pad] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 0}, {2, 1}})
        expect_same(qconv_graph(residual, per_channel, stride, pad, residual), 51);
  // Rows of 32 and 40 output columns: vectors of 16 and 8 columns, several per row.
  expect_same(qconv_graph(true, true, 1, 1, true, 32), 52);
  expect_same(qconv_graph(false, false, 1, 1, false, 40), 53);
}

TEST(LlvmKernels, QDenseFallback) {
  cg::Graph g("qdense");
  const int64_t M = 3, K = 37, N = 40;  // 40: the output row is vectorizable
  const cg::ValueId x = g.add_input("x", i8({M, K}, -4));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d8(-128, 127);
  std::vector<int8_t> w(static_cast<size_t>(N * K));
  for (auto& v : w) v = static_cast<int8_t>(d8(rng));
  const cg::ValueId wv = g.add_constant("w", i8({N, K}, -7), cg::ConstData::from_i8(w));
  cg::NodeFacts f;
  f.shift = 6;
  g.add_node(cg::OpKind::QDense, "qdense", {x, wv}, {}, {i8({M, N}, -4)}, {}, f);
  expect_same(g, 61);
}

// A batched dense (attention's product with V left on the CPU): one kernel of the slice's
// shape runs each of the 3 slices, its weights an activation, the bias and the per-channel
// shifts shared by every slice.
TEST(LlvmKernels, BatchedQDenseRunsOneKernelPerSlice) {
  cg::Graph g("qdense_slices");
  const int64_t S = 3, M = 5, K = 37, N = 24;
  const cg::ValueId x = g.add_input("x", i8({S * M, K}, -4));
  const cg::ValueId w = g.add_input("w", i8({S * N, K}, -5));
  std::vector<int32_t> b(static_cast<size_t>(N));
  for (int64_t j = 0; j < N; ++j) b[static_cast<size_t>(j)] = int32_t(j * 97 % 401) - 200;
  cg::TensorType bt(cg::DType::I32, {N});
  const cg::ValueId bv = g.add_constant("b", bt, cg::ConstData::from_i32(b));
  cg::NodeFacts f;
  f.slices = S;
  f.shifts = std::vector<int64_t>(static_cast<size_t>(N));
  for (int64_t j = 0; j < N; ++j) (*f.shifts)[static_cast<size_t>(j)] = 5 + j % 4;
  g.add_node(cg::OpKind::QDense, "qdense", {x, w, bv}, {}, {i8({S * M, N}, -4)}, {}, f);
  expect_same(g, 62);
}

// The fp32 nodes a transformer keeps on the CPU in an int8 run (Softmax, Transpose, Slice,
// ReduceMean, and Pow by a constant 2 as a multiply) take the fp32 path's JIT kernels, bit
// for bit the interpreter's loops that run_cpu_node falls back to.
TEST(LlvmKernels, Fp32TransformerNodesMatchTheLoopsBitForBit) {
  const cg::TensorType x(cg::DType::F32, {2, 6, 9});
  for (int64_t axis : {2, 1})
    expect_same(one_node(cg::OpKind::Softmax, {x}, x, {{"axis", axis}}), 71);
  expect_same(one_node(cg::OpKind::Transpose, {x}, cg::TensorType(cg::DType::F32, {9, 2, 6}),
                       {{"perm", std::vector<int64_t>{2, 0, 1}}}),
              72);
  expect_same(one_node(cg::OpKind::Slice, {x}, cg::TensorType(cg::DType::F32, {2, 2, 9}),
                       {{"axis", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{5}},
                        {"step", int64_t{2}}}),
              73);
  expect_same(one_node(cg::OpKind::ReduceMean, {x}, cg::TensorType(cg::DType::F32, {2, 1, 1}),
                       {{"axes", std::vector<int64_t>{1, 2}}, {"keepdims", int64_t{1}}}),
              74);
  // Axes that are not adjacent: the loop's general walk, no kernel.
  expect_same(one_node(cg::OpKind::ReduceMean, {x}, cg::TensorType(cg::DType::F32, {1, 6, 1}),
                       {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{1}}}),
              75, false);
  cg::Graph pow("pow");
  const cg::ValueId in = pow.add_input("x", x);
  const float two = 2.0f;
  const cg::ValueId e = pow.add_constant("two", cg::TensorType(cg::DType::F32, {}),
                                         cg::ConstData::from_f32({two}));
  pow.add_node(cg::OpKind::Pow, "square", {in, e}, {}, {x});
  expect_same(pow, 76);
  // Subnormal squares: powf rounds 0x1.8p-74 squared to 5 x 2^-149, a * a (and PyTorch) to 4.
  EXPECT_EQ(compiler::ops::apply(compiler::ops::BinaryFn::kPow, 0x1.8p-74f, 2.0f), 0x1p-147f);
}

TEST(LlvmKernels, LayoutAndCopyNodesStayPlain) {
  // Flatten/Reshape are copies: no LLVM kernel (Im2Col and MaxPool with packed outputs have
  // theirs, make_llvm_packed_kernel, tested below).
  expect_same(one_node(cg::OpKind::Flatten, {i8({1, 8, 1, 1}, -4)}, i8({1, 8}, -4)), 1, false);
}

TEST(LlvmKernels, FloatKernelsMatchThePlainLoops) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  std::mt19937 rng(3);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> x(2 * 3 * 9 * 10);
  for (auto& v : x) v = d(rng);
  // Clip, max and average pools, global average pool, scale-shift (batch norm), add: equal to
  // or within 1e-6 of double loops.
  std::vector<float> y(x.size());
  ASSERT_TRUE(llvm_clip_f32(x.data(), y.data(), int64_t(x.size()), -0.5f, 0.75f));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], std::min(std::max(x[i], -0.5f), 0.75f));
  const int64_t planes = 6, H = 9, W = 10, OH = 5, OW = 5;
  std::vector<float> mp(planes * OH * OW), ap(planes * OH * OW);
  ASSERT_TRUE(llvm_pool_f32(true, x.data(), mp.data(), planes, H, W, OH, OW, {3, 3}, {2, 2},
                            {1, 1, 1, 1}, false));
  ASSERT_TRUE(llvm_pool_f32(false, x.data(), ap.data(), planes, H, W, OH, OW, {3, 3}, {2, 2},
                            {1, 1, 1, 1}, false));
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t r = 0; r < OH; ++r)
      for (int64_t q = 0; q < OW; ++q) {
        float best = -INFINITY;
        double sum = 0;
        int cnt = 0;
        for (int64_t dy = 0; dy < 3; ++dy)
          for (int64_t dx = 0; dx < 3; ++dx) {
            const int64_t iy = r * 2 + dy - 1, ix = q * 2 + dx - 1;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            best = std::max(best, x[(p * H + iy) * W + ix]);
            sum += x[(p * H + iy) * W + ix];
            ++cnt;
          }
        EXPECT_EQ(mp[(p * OH + r) * OW + q], best);
        EXPECT_NEAR(ap[(p * OH + r) * OW + q], sum / cnt, 1e-6);
      }
  std::vector<float> gap(planes);
  ASSERT_TRUE(llvm_global_avg_pool_f32(x.data(), gap.data(), planes, H * W));
  for (int64_t p = 0; p < planes; ++p) {
    double sum = 0;
    for (int64_t i = 0; i < H * W; ++i) sum += x[p * H * W + i];
    EXPECT_NEAR(gap[p], sum / (H * W), 1e-6);
  }
  std::vector<float> sa = {0.5f, -2.f, 1.25f}, sb = {1.f, 0.f, -3.f}, bn(x.size());
  ASSERT_TRUE(llvm_scale_shift_f32(x.data(), sa.data(), sb.data(), bn.data(), 2, 3, H * W));
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t ch = (i / (H * W)) % 3;
    EXPECT_NEAR(bn[i], double(x[i]) * sa[ch] + sb[ch], 1e-5);
  }
  std::vector<float> z(x.size());
  const std::vector<int64_t> shape = {int64_t(x.size())};
  ASSERT_TRUE(llvm_binary_f32(compiler::ops::BinaryFn::kAdd, x.data(), shape, y.data(), shape,
                              z.data(), shape));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(z[i], x[i] + y[i]);
}

// The float element-wise functions (compiler/ops/float_eltwise.h): the JIT kernels call the
// same C library functions as the scalar templates in float, so they agree to the last bit or
// two (a multiply-add may be fused into one rounding in the kernel).
// Softmax along the middle axis of [3, 37, 5] (large values: the maximum must be subtracted)
// and LayerNormalization of [6, 4, 9] over its last two dimensions with a scale over the last
// one and a full bias, against the host interpreter's loops in double.
TEST(LlvmKernels, SoftmaxAndLayerNormMatchTheHostLoops) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  std::mt19937 rng(9);
  std::normal_distribution<float> d(0.f, 3.f);
  auto filled = [&](size_t n, float offset) {
    std::vector<float> v(n);
    for (auto& e : v) e = d(rng) + offset;
    return v;
  };
  const std::vector<float> x = filled(3 * 37 * 5, 500.f);
  std::vector<float> y(x.size());
  ASSERT_TRUE(llvm_softmax_f32(x.data(), y.data(), 3, 37, 5));
  std::vector<double> xd(x.begin(), x.end()), want(x.size());
  compiler::graph::softmax_kernel<double>(xd.data(), {3, 37, 5}, 1, want.data());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;

  // LayerNorm over rows of 36 (four whole pieces of the sums' lanes and a tail of 4), of 5
  // (shorter than the lanes) and of 96 (ConvNeXt's first stage, whole pieces only).
  for (int64_t len : {36, 5, 96}) {
    const int64_t rows = 24;
    const std::vector<float> z = filled(rows * len, 1.f), sc = filled(9, 0.f),
                             bi = filled(len, 0.f);
    const int64_t scale_n = len % 9 == 0 ? 9 : 1;
    std::vector<float> out(z.size());
    ASSERT_TRUE(llvm_layer_norm_f32(z.data(), sc.data(), bi.data(), out.data(), rows, len, 1e-5,
                                    scale_n, len));
    std::vector<double> zd(z.begin(), z.end()), scd(sc.begin(), sc.end()),
        bid(bi.begin(), bi.end()), ln(z.size());
    compiler::graph::layer_norm_kernel<double>(zd.data(), {rows, len}, 1, 1e-5, scd.data(),
                                               scale_n, bid.data(), len, ln.data());
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_NEAR(out[i], ln[i], 1e-5 * (1 + std::fabs(ln[i]))) << len << ": " << i;
  }
}

// Transpose, Slice and ReduceMean move or sum the same floats in the same order as the host
// interpreter's float loops: equal bit for bit. Resize's linear blend may fuse its multiply and
// add (the JIT allows contraction): equal to rounding.
TEST(LlvmKernels, DataMovementAndReduceMeanMatchTheHostLoopsBitForBit) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  std::mt19937 rng(11);
  std::normal_distribution<float> d(0.f, 3.f);
  auto filled = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& e : v) e = d(rng);
    return v;
  };
  auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
  };
  const std::vector<int64_t> xs = {2, 3, 5, 7};
  const std::vector<float> x = filled(2 * 3 * 5 * 7);
  for (const std::vector<int64_t>& perm :
       {std::vector<int64_t>{0, 2, 1, 3}, {3, 2, 1, 0}, {0, 1, 3, 2}, {1, 0, 2, 3}}) {
    std::vector<float> y(x.size()), want(x.size());
    ASSERT_TRUE(llvm_transpose_f32(x.data(), xs, perm, y.data()));
    compiler::graph::transpose_kernel<float>(x.data(), xs, perm, want.data());
    EXPECT_TRUE(same(y, want)) << perm[0] << perm[1] << perm[2] << perm[3];
  }
  for (size_t axis = 0; axis < xs.size(); ++axis)
    for (int64_t step : {1, 2}) {
      const int64_t b = 1, e = xs[axis], count = (e - b + step - 1) / step;
      std::vector<float> y(x.size() / xs[axis] * count), want(y.size());
      ASSERT_TRUE(llvm_slice_f32(x.data(), xs, axis, b, e, step, y.data()));
      compiler::graph::slice_kernel<float>(x.data(), xs, axis, b, e, want.data(), step);
      EXPECT_TRUE(same(y, want)) << "axis " << axis << " step " << step;
    }
  for (const std::vector<bool>& reduced : {std::vector<bool>{false, false, false, true},
                                           {false, false, true, true},
                                           {false, true, true, false},
                                           {true, false, false, false}}) {
    int64_t kept = 1;
    for (size_t k = 0; k < xs.size(); ++k) kept *= reduced[k] ? 1 : xs[k];
    std::vector<float> y(static_cast<size_t>(kept)), want(y.size());
    ASSERT_TRUE(llvm_reduce_mean_f32(x.data(), xs, reduced, y.data()));
    compiler::graph::reduce_mean_kernel<float>(x.data(), xs, reduced, want.data(), kept);
    EXPECT_TRUE(same(y, want));
  }
  // Dimensions that are not adjacent are left to the loop.
  std::vector<float> y4(2 * 5);
  EXPECT_FALSE(llvm_reduce_mean_f32(x.data(), xs, {false, true, false, true}, y4.data()));

  // Linear along H and W (2x up, 3 -> 2 down), nearest-like weights (0) on one axis.
  compiler::graph::ResizeAxis keep, up, down;
  keep.identity = true;
  for (int64_t i = 0; i < 10; ++i) {
    up.lo.push_back(std::max<int64_t>(0, (i - 1) / 2));
    up.hi.push_back(std::min<int64_t>(4, (i + 1) / 2));
    up.w.push_back(0.25 * double(i % 4));
  }
  down.lo = {0, 3};
  down.hi = {0, 6};
  down.w = {0.0, 0.375};
  const std::vector<compiler::graph::ResizeAxis> axes = {keep, keep, up, down};
  std::vector<float> y(2 * 3 * 10 * 2), want(y.size());
  ASSERT_TRUE(llvm_resize_f32(x.data(), xs, axes, y.data()));
  compiler::graph::resize_kernel<float>(x.data(), xs, axes, want.data());
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-6f * (1 + std::fabs(want[i]))) << i;
}

// weft.exp, weft.tanh and weft.erf are one definition each (compiler/ir/float_functions.h): the
// JIT's vector code and the host's functions give the same bits, through every unary function
// that uses them (Sigmoid: the exp's last product feeds an add, which the JIT must not fuse into
// an fma; Tanh, Erf, both GELUs, SiLU) and Softmax, over a sweep of the whole range, the limits,
// subnormal results, infinities and NaN.
TEST(LlvmKernels, FloatFunctionsAreOneDefinitionOnTheHostAndInTheJit) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  namespace ops = compiler::ops;
  std::vector<float> x;
  for (float v = -120.f; v <= 120.f; v += 0.0137f) x.push_back(v);
  for (float v = -6.f; v <= 6.f; v += 0.000731f) x.push_back(v);  // the branches of tanh and erf
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.f, -0.f, 88.72f, 88.73f, -87.34f, -103.9f, -104.1f, 0.55f, -0.55f, 0.875f,
                  -0.875f, 4.f, -4.f, 1e-30f, -1e-38f, inf, -inf,
                  std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  if (x.size() % 2 == 0) x.push_back(0.25f);  // an odd count: a scalar tail as well as vectors
  auto bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  for (ops::Unary u : {ops::Unary{ops::Unary::kSigmoid}, ops::Unary{ops::Unary::kTanh},
                       ops::Unary{ops::Unary::kErf}, ops::Unary{ops::Unary::kGelu},
                       ops::Unary{ops::Unary::kGeluTanh}, ops::Unary{ops::Unary::kSilu}}) {
    std::vector<float> y(x.size());
    ASSERT_TRUE(llvm_unary_f32(u, x.data(), y.data(), int64_t(x.size())));
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = ops::apply<float>(u, x[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << u.str() << "(" << x[i] << ")";
        continue;
      }
      // The tanh GELU's polynomial may round differently (compiler/ops/float_eltwise.h).
      if (u.fn == ops::Unary::kGeluTanh && y[i] != want) {
        ASSERT_NEAR(y[i], want, 4e-7f * std::max(1.f, std::fabs(want))) << x[i];
        continue;
      }
      ASSERT_EQ(bits(y[i]), bits(want))
          << u.str() << "(" << x[i] << ") = " << y[i] << ", not " << want;
    }
  }
  // Softmax over rows of the sweep's values (exp of x - max, then the sum in its partials):
  // rows shorter than, as long as and a little longer than a vector of the sum's lanes, and
  // ViT's 197; then along a middle axis (inner 5: the quotients vectorized across rows).
  for (int64_t n : {7, 8, 9, 16, 197}) {
    const int64_t rows = static_cast<int64_t>(x.size()) / n;
    std::vector<float> s(size_t(rows * n)), want(s.size());
    ASSERT_TRUE(llvm_softmax_f32(x.data(), s.data(), rows, n, 1));
    compiler::graph::softmax_kernel<float>(x.data(), {rows, n}, 1, want.data());
    for (size_t i = 0; i < s.size(); ++i) {
      if (std::isnan(want[i])) {  // a row with a NaN or an infinity: NaN throughout
        ASSERT_TRUE(std::isnan(s[i])) << n << ": " << i;
        continue;
      }
      ASSERT_EQ(bits(s[i]), bits(want[i])) << n << ": " << i;
    }
  }
  std::vector<float> s(3 * 37 * 5), want(s.size());
  ASSERT_TRUE(llvm_softmax_f32(x.data() + 7, s.data(), 3, 37, 5));
  compiler::graph::softmax_kernel<float>(x.data() + 7, {3, 37, 5}, 1, want.data());
  for (size_t i = 0; i < s.size(); ++i) ASSERT_EQ(bits(s[i]), bits(want[i])) << i;
}

TEST(LlvmKernels, FloatElementwiseFunctionsMatchTheScalarDefinitions) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  namespace ops = compiler::ops;
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.f, 3.f);
  std::vector<float> x(203);  // not a multiple of the vector width: a scalar tail
  for (auto& v : x) v = d(rng);
  x[0] = 0.f, x[1] = -100.f, x[2] = 100.f, x[3] = 3.f, x[4] = -3.f;
  auto close = [](float got, float want) {
    if (std::isnan(want)) return std::isnan(got);
    return std::fabs(got - want) <= 2e-7f * std::max(1.f, std::fabs(want));
  };
  for (ops::Unary u : {ops::Unary{ops::Unary::kSigmoid}, ops::Unary{ops::Unary::kTanh},
                       ops::Unary{ops::Unary::kErf}, ops::Unary{ops::Unary::kSqrt},
                       ops::Unary{ops::Unary::kHardSigmoid, 0.2f, 0.5f},
                       ops::Unary{ops::Unary::kHardSwish}}) {
    std::vector<float> y(x.size());
    ASSERT_TRUE(llvm_unary_f32(u, x.data(), y.data(), int64_t(x.size())));
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_TRUE(close(y[i], ops::apply<float>(u, x[i])))
          << u.str() << "(" << x[i] << ") = " << y[i] << ", not " << ops::apply<float>(u, x[i]);
  }
  // Broadcasting: [2,3,5,7] with [3,1,1] (per channel), [7] (per column), [2,1,5,1] and a
  // scalar, each as either operand.
  const std::vector<int64_t> big = {2, 3, 5, 7};
  std::vector<float> a(2 * 3 * 5 * 7);
  for (auto& v : a) v = std::fabs(d(rng)) + 0.1f;  // positive bases for Pow
  for (const std::vector<int64_t>& small :
       {std::vector<int64_t>{3, 1, 1}, {7}, {2, 1, 5, 1}, {1}, {2, 3, 5, 7}}) {
    int64_t n = 1;
    for (int64_t v : small) n *= v;
    std::vector<float> b(static_cast<size_t>(n));
    for (auto& v : b) v = d(rng) * 0.5f + (v > 0 ? 0.25f : -0.25f);
    for (ops::BinaryFn f : {ops::BinaryFn::kAdd, ops::BinaryFn::kSub, ops::BinaryFn::kMul,
                            ops::BinaryFn::kDiv, ops::BinaryFn::kPow}) {
      for (bool swap : {false, true}) {
        if (swap && f == ops::BinaryFn::kPow) continue;  // keep the base positive
        const auto& sa = swap ? small : big;
        const auto& sb = swap ? big : small;
        const float* pa = swap ? b.data() : a.data();
        const float* pb = swap ? a.data() : b.data();
        std::vector<float> got(a.size()), want(a.size());
        ASSERT_TRUE(llvm_binary_f32(f, pa, sa, pb, sb, got.data(), big));
        cg::broadcast_kernel<float>(pa, sa, pb, sb, want.data(), big, [f](float u, float v) {
          return ops::apply<float>(f, u, v);
        });
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_TRUE(close(got[i], want[i]))
              << ops::binary_name(f) << " " << cg::shape_str(sa) << " " << cg::shape_str(sb)
              << " at " << i << ": " << got[i] << ", not " << want[i];
      }
    }
  }
}

// ---- packed outputs (kCpuPacked): the stem's Im2Col (quantizing an f32 input) and the max
// pool writing the device arena's blocked layout, against packed_io.h's loops ----

// A writer into `mem` that checks bounds.
PackedWriter into(std::vector<int8_t>& mem) {
  return [&mem](int64_t off, const int8_t* d, int64_t b) {
    ASSERT_GE(off, 0);
    ASSERT_LE(off + b, static_cast<int64_t>(mem.size()));
    std::memcpy(mem.data() + off, d, static_cast<size_t>(b));
  };
}

// Runs packed node `n` of `g` on `in` through packed_io.h's loop and through its LLVM kernel:
// the same bytes over the whole packed tensor (each side starts from a different fill, so a
// byte either leaves unwritten shows), the staging within one chunk, the kernel cached.
void expect_same_packed(const cg::Graph& g, const cg::Node& n, const void* in) {
  SCOPED_TRACE(n.name);
  auto k = make_llvm_packed_kernel(g, n);
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(make_llvm_node_kernel(g, n), nullptr);  // a packed output: not a plain kernel
  const cg::TensorType& yt = g.value(n.outputs[0]).type;
  std::vector<int8_t> want(static_cast<size_t>(yt.stored_bytes()), 0x11), got(want.size(), 0x22);
  const int64_t plain_staged = n.kind == cg::OpKind::Im2Col
                                   ? im2col_packed(g, n, in, into(want))
                                   : pool_packed(g, n, static_cast<const int8_t*>(in), into(want));
  const int64_t staged = run_llvm_packed(*k, in, into(got));
  EXPECT_EQ(got, want) << llvm_node_kernel_key(*k);
  // The same chunks: the output chunk (plus, for Im2Col, its window of input rows, padded).
  const int64_t bn = yt.layout.n, bc = yt.layout.c;
  const int64_t blocks = (yt.shape[0] + bn - 1) / bn * ((yt.shape[1] + bc - 1) / bc);
  const int64_t unit = n.kind == cg::OpKind::Im2Col ? blocks * yt.shape[3] * bn * bc  // a row
                                                    : yt.shape[2] * yt.shape[3] * bn * bc;  // a plane
  EXPECT_LE(staged, plain_staged + plain_staged / 4);
  if (n.kind == cg::OpKind::MaxPool) {
    EXPECT_LE(staged, std::max<int64_t>(kPackedChunkBytes, unit));
  }
  const int before = llvm_kernel_stats().compiled;
  make_llvm_packed_kernel(g, n);
  EXPECT_EQ(llvm_kernel_stats().compiled, before);
}

// An Im2Col band as fold_packs writes it: rows 3.. of a 7x7 stride-2 window over a 3x23x21
// input, 40 output rows (the last ones past the input: zeros), three constant columns.
cg::Graph im2col_graph(cg::DType in, int64_t N, int64_t bn, int64_t bc) {
  cg::Graph g("im2col");
  cg::TensorType xt(in, {N, 3, 23, 21});
  if (in == cg::DType::I8) xt.quant.scale = {0.125f};
  const cg::ValueId x = g.add_input("x", xt);
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
  g.add_op(cg::OpKind::Im2Col, "im2col", {x}, a, f);
  return g;
}

TEST(LlvmKernels, PackedIm2ColQuantizesAndGathersAsThePlainLoop) {
  for (cg::DType dt : {cg::DType::F32, cg::DType::I8})
    for (auto [N, bn, bc] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 16}, {3, 2, 8}}) {
      const cg::Graph g = im2col_graph(dt, N, bn, bc);
      const cg::Node& n = g.node(static_cast<cg::NodeId>(g.num_nodes() - 1));
      // f32: quarter steps at the output scale (ties at .5 round to even) and +-1e6 (saturate).
      const auto x = random_bytes(g.value(n.inputs[0]).type, 71 + static_cast<uint32_t>(N));
      expect_same_packed(g, n, x.data());
    }
}

TEST(LlvmKernels, PackedMaxPoolAsThePlainLoop) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t bn, bc;
    std::vector<int64_t> k, s, p;
  };
  const std::vector<Case> cases = {
      {{1, 40, 13, 12}, 1, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}},  // partial channel block
      {{3, 8, 13, 12}, 2, 8, {3, 3}, {2, 2}, {1, 1, 1, 1}},    // partial batch block
      {{1, 3, 9, 10}, 1, 16, {3, 4}, {2, 3}, {1, 0, 1, 2}},    // windows off the edge
      {{1, 64, 30, 112}, 1, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}},  // a stem band: one plane per chunk
  };
  uint32_t seed = 81;
  for (const Case& c : cases) {
    cg::Graph g("pool");
    const cg::ValueId x = g.add_input("x", i8(c.shape, -3));
    cg::NodeFacts f;
    f.layout_n = c.bn;
    f.layout_c = c.bc;
    g.add_op(cg::OpKind::MaxPool, "pool.packed", {x},
             {{"kernel_shape", c.k}, {"strides", c.s}, {"pads", c.p}}, f);
    const cg::Node& n = g.node(static_cast<cg::NodeId>(g.num_nodes() - 1));
    const auto in = random_bytes(g.value(x).type, seed++);
    expect_same_packed(g, n, in.data());
  }
  // A packed average pool has no LLVM kernel: the executor runs packed_io.h's loop.
  cg::Graph g("avg");
  const cg::ValueId x = g.add_input("x", i8({1, 8, 6, 6}, -3));
  cg::NodeFacts f;
  f.layout_n = 1;
  f.layout_c = 16;
  g.add_op(cg::OpKind::AveragePool, "avg.packed", {x},
           {{"kernel_shape", std::vector<int64_t>{2, 2}},
            {"strides", std::vector<int64_t>{2, 2}},
            {"out_scale", 0.25}},
           f);
  EXPECT_EQ(make_llvm_packed_kernel(g, g.node(static_cast<cg::NodeId>(g.num_nodes() - 1))), nullptr);
}

// The int8 network path: every CPU node that has an LLVM kernel reports "llvm", and the
// outputs equal the plain loops' and the independent int8 reference's.
TEST(LlvmKernels, SmallResNetBitExactWithAndWithoutLlvmKernels) {
  cg::models::ResNetOptions o;
  o.batch = 1, o.image = 32, o.width = 16, o.classes = 10, o.stages = 2;
  cg::Graph g = cg::models::resnet18(o);
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, {});
  auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 5);
  const auto want = cg::reference_int8(c.graph, {x})[0];
  for (bool llvm : {true, false}) {
    ExecutorOptions eo;
    eo.llvm_kernels = llvm;
    GraphExecutor exe(c, l, pf, eo);
    auto dev = open_graph_device("functional", exe, l, pf);
    RunResult r = exe.run(*dev, {x});
    EXPECT_EQ(r.outputs[0], want) << (llvm ? "llvm" : "plain");
    int on_llvm = 0;
    for (const StepReport& s : r.report.steps) {
      if (s.engine == "llvm") ++on_llvm;
      // The stem's Im2Col (quantizing the f32 input, writing packed) and the max pool's bands
      // (writing packed) included.
      if (s.op == "MaxPool" || s.op == "weft.Im2Col" || s.op == "weft.Quantize" ||
          s.op == "weft.Dequantize") {
        EXPECT_EQ(s.engine, llvm && have_llvm_kernels() ? "llvm" : "cpu") << s.node;
      }
    }
    if (!llvm || !have_llvm_kernels()) {
      EXPECT_EQ(on_llvm, 0);
    } else {
      EXPECT_GE(on_llvm, 3);
    }
  }
}

}  // namespace
}  // namespace weft::rt::graph

namespace weft::rt::graph {
namespace {

// The full ResNet-18 (224x224, vta): each of its CPU nodes with an LLVM kernel at its real
// shape and scales against the plain loop on random inputs (plain outputs: cpu_kernels.h's
// loops; packed outputs written into the device arena: packed_io.h's), then the whole network
// on the functional engine bit-exact with the int8 reference interpreter, every one of those
// nodes reporting engine "llvm".
TEST(LlvmKernels, FullResNet18BitExact) {
  if (!have_llvm_kernels()) GTEST_SKIP() << "built without the LLVM CPU backend";
  cg::Graph g = cg::models::resnet18({});
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, {});
  std::vector<std::string> plain_nodes, packed_nodes;
  for (const cg::Node& n : c.graph.nodes()) {
    if (n.dead) continue;
    const bool plain = make_llvm_node_kernel(c.graph, n) != nullptr;
    if (!plain && !make_llvm_packed_kernel(c.graph, n)) continue;
    // The node alone, with its inputs' types (and constants) and its output's type.
    cg::Graph alone("alone");
    std::vector<cg::ValueId> vs;
    for (cg::ValueId v : n.inputs) {
      const cg::Value& val = c.graph.value(v);
      vs.push_back(val.is_constant() ? alone.add_constant(val.name, val.type, val.data)
                                     : alone.add_input(val.name, val.type));
    }
    alone.add_node(n.kind, n.name, vs, n.attrs, {c.graph.value(n.outputs[0]).type}, {}, n.facts);
    const uint32_t seed = 1000 + static_cast<uint32_t>(plain_nodes.size() + packed_nodes.size());
    if (plain) {
      expect_same(alone, seed);  // runs the graph's last node
      plain_nodes.push_back(n.name);
    } else {
      const cg::Node& an = alone.node(static_cast<cg::NodeId>(alone.num_nodes() - 1));
      const auto in = random_bytes(alone.value(an.inputs[0]).type, seed);
      expect_same_packed(alone, an, in.data());
      packed_nodes.push_back(n.name);
    }
  }
  // Plain: the global average pool and the logits' dequantize. Packed (band_pool's four row
  // bands): the stem's Im2Col, quantizing the f32 image, and the max pool.
  EXPECT_EQ(plain_nodes, (std::vector<std::string>{"avgpool", "logits.f32"}));
  EXPECT_EQ(packed_nodes,
            (std::vector<std::string>{"conv1.im2col.rows0", "conv1.im2col.rows28",
                                      "conv1.im2col.rows56", "conv1.im2col.rows84", "maxpool.rows0",
                                      "maxpool.rows14", "maxpool.rows28", "maxpool.rows42"}));
  GraphExecutor exe(c, l, pf);
  auto dev = open_graph_device("functional", exe, l, pf);
  auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 3);
  const RunResult r = exe.run(*dev, {x});
  EXPECT_EQ(r.outputs[0], cg::reference_int8(c.graph, {x})[0]);
  std::vector<std::string> on_llvm;
  for (const StepReport& s : r.report.steps)
    if (s.engine == "llvm") on_llvm.push_back(s.node);
  std::vector<std::string> want = packed_nodes;
  want.insert(want.end(), plain_nodes.begin(), plain_nodes.end());
  std::sort(on_llvm.begin(), on_llvm.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(on_llvm, want);
}

}  // namespace
}  // namespace weft::rt::graph
