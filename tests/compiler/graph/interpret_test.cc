// The host interpreter (compiler/graph/interpret.h) in both instantiations: every operator on a
// small case worked out by hand, the fixed summation order that makes the float results
// reproducible, the observer, KernelOverrides taken and declined, and bad inputs as user errors
// naming what is wrong.
#include "compiler/graph/interpret.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "compiler/graph/transformer_kernels.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {
namespace {

ValueId f32_const(Graph& g, const std::string& name, std::vector<int64_t> shape,
                  const std::vector<float>& v) {
  return g.add_constant(name, TensorType(DType::F32, std::move(shape)), ConstData::from_f32(v));
}

template <typename T>
class Interpret : public ::testing::Test {
 protected:
  // Runs `g` (one float input) on `x` and returns its only output.
  std::vector<T> run(const Graph& g, const std::vector<T>& x) {
    return interpret<T>(g, {x}).at(0);
  }
};

using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Interpret, Types);

TYPED_TEST(Interpret, ConvWithBiasPadsAndStrides) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 1, 3, 3}));
  const ValueId w = f32_const(g, "w", {2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, 1, 1});
  const ValueId b = f32_const(g, "b", {2}, {10, -1});
  g.set_outputs({g.add_op(OpKind::Conv, "conv", {x, w, b},
                          {{"pads", std::vector<int64_t>{1, 1, 1, 1}},
                           {"strides", std::vector<int64_t>{2, 2}}})});
  // Windows start at (2r - 1, 2q - 1); w0 adds its top-left and bottom-right taps, w1 all four.
  EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
            (std::vector<TypeParam>{11, 13, 17, 24, 0, 4, 10, 27}));
}

// Gelu's two forms against values computed independently (Python's math.erf, math.tanh).
TYPED_TEST(Interpret, GeluBothForms) {
  for (const char* approx : {"none", "tanh"}) {
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {4}));
    g.set_outputs({g.add_op(OpKind::Gelu, "gelu", {x}, {{"approximate", std::string(approx)}})});
    const auto y = this->run(g, {-2, -0.5, 1, 3});
    const std::vector<double> want =
        std::string(approx) == "none"
            ? std::vector<double>{-0.04550026389635842, -0.15426876936299344,
                                  0.8413447460685429, 2.99595030590511}
            : std::vector<double>{-0.04540230591222494, -0.15428599017485606,
                                  0.8411919906082768, 2.996362607918227};
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(double(y[i]), want[i], 1e-6) << approx << " " << i;
  }
}

// Resize on a 1x1x2x2 input: nearest by 2 (asymmetric, floor) copies each pixel into a 2x2
// block; linear to 1x1x3x3 with align_corners puts the corners in place and their means
// between.
TYPED_TEST(Interpret, ResizeNearestAndLinear) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 1, 2, 2}));
  const ValueId n = g.add_op(
      OpKind::Resize, "up", {x},
      {{"mode", std::string("nearest")}, {"coordinate_transformation_mode", std::string("asymmetric")},
       {"nearest_mode", std::string("floor")}, {"scales", std::vector<double>{1, 1, 2, 2}},
       {"sizes", std::vector<int64_t>{1, 1, 4, 4}}});
  const ValueId l = g.add_op(
      OpKind::Resize, "lin", {x},
      {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("align_corners")},
       {"scales", std::vector<double>{1, 1, 1.5, 1.5}}, {"sizes", std::vector<int64_t>{1, 1, 3, 3}}});
  g.set_outputs({n, l});
  const auto out = interpret<TypeParam>(g, {{1, 2, 3, 4}});
  EXPECT_EQ(out.at(0), (std::vector<TypeParam>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_EQ(out.at(1), (std::vector<TypeParam>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
}

TYPED_TEST(Interpret, GroupConv) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 1, 2}));
  const ValueId w = f32_const(g, "w", {2, 1, 1, 1}, {2, -3});
  g.set_outputs({g.add_op(OpKind::Conv, "conv", {x, w}, {{"group", int64_t{2}}})});
  EXPECT_EQ(this->run(g, {1, 2, 3, 4}), (std::vector<TypeParam>{2, 4, -9, -12}));
}

TYPED_TEST(Interpret, ConvSumsTheBiasFirstThenTheTapsInOrder) {
  // Two taps of 4 after a bias of 1e8: in float each 1e8 + 4 is a tie that rounds back to 1e8
  // (the spacing there is 8), so the sum is 1e8; bias last would give 1e8 + 8. In double both
  // orders are exact. The calibration's exponents depend on such bits.
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 1, 1}));
  const ValueId w = f32_const(g, "w", {1, 2, 1, 1}, {4, 4});
  const ValueId b = f32_const(g, "b", {1}, {1e8f});
  g.set_outputs({g.add_op(OpKind::Conv, "conv", {x, w, b})});
  const TypeParam want = std::is_same_v<TypeParam, float> ? TypeParam(1e8) : TypeParam(1e8 + 8);
  EXPECT_EQ(this->run(g, {1, 1}), std::vector<TypeParam>{want});
}

TYPED_TEST(Interpret, BatchNormalization) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 1, 2}));
  const ValueId sc = f32_const(g, "scale", {2}, {2, 1});
  const ValueId bi = f32_const(g, "bias", {2}, {0, 1});
  const ValueId mu = f32_const(g, "mean", {2}, {1, 3});
  const ValueId var = f32_const(g, "var", {2}, {3, 0});
  g.set_outputs({g.add_op(OpKind::BatchNormalization, "bn", {x, sc, bi, mu, var},
                          {{"epsilon", 1.0}})});
  // Channel 0: (x - 1) / 2 * 2; channel 1: (x - 3) / 1 + 1.
  EXPECT_EQ(this->run(g, {1, 2, 3, 4}), (std::vector<TypeParam>{0, 1, 1, 2}));
}

TYPED_TEST(Interpret, ReluAndClip) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {4}));
  const ValueId r = g.add_op(OpKind::Relu, "relu", {x});
  const ValueId lo = f32_const(g, "lo", {}, {-1});
  const ValueId hi = f32_const(g, "hi", {}, {2});
  const ValueId c = g.add_op(OpKind::Clip, "clip", {x, lo, hi});
  const ValueId a = g.add_op(OpKind::Clip, "clip_attrs", {x}, {{"min", 0.5}});
  g.set_outputs({r, c, a});
  const auto out = interpret<TypeParam>(g, {{-3, -0.5, 1.5, 7}});
  EXPECT_EQ(out[0], (std::vector<TypeParam>{0, 0, 1.5, 7}));
  EXPECT_EQ(out[1], (std::vector<TypeParam>{-1, -0.5, 1.5, 2}));
  EXPECT_EQ(out[2], (std::vector<TypeParam>{0.5, 0.5, 1.5, 7}));
}

TYPED_TEST(Interpret, PoolsWithPadding) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 1, 2, 2}));
  const Attrs win = {{"kernel_shape", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  Attrs incl = win;
  incl["count_include_pad"] = int64_t{1};
  g.set_outputs({g.add_op(OpKind::MaxPool, "max", {x}, win),
                 g.add_op(OpKind::AveragePool, "avg", {x}, win),
                 g.add_op(OpKind::AveragePool, "avg_incl", {x}, incl)});
  // A negative input: padded taps never win the max, nor count without count_include_pad.
  const auto out = interpret<TypeParam>(g, {{-1, -2, -3, -4}});
  EXPECT_EQ(out[0], (std::vector<TypeParam>{-1, -1, -2, -1, -1, -2, -3, -3, -4}));
  EXPECT_EQ(out[1], (std::vector<TypeParam>{-1, -1.5, -2, -2, -2.5, -3, -3, -3.5, -4}));
  EXPECT_EQ(out[2],
            (std::vector<TypeParam>{-0.25, -0.75, -0.5, -1, -2.5, -1.5, -0.75, -1.75, -1}));
}

TYPED_TEST(Interpret, GlobalAveragePool) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 1, 3}));
  g.set_outputs({g.add_op(OpKind::GlobalAveragePool, "gap", {x})});
  EXPECT_EQ(this->run(g, {1, 2, 6, -3, 0, 0}), (std::vector<TypeParam>{3, -1}));
}

TYPED_TEST(Interpret, AddBroadcastsAndConcat) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 3}));
  const ValueId row = f32_const(g, "row", {3}, {10, 20, 30});
  const ValueId col = f32_const(g, "col", {2, 1}, {100, 200});
  const ValueId a = g.add_op(OpKind::Add, "a", {x, row});
  const ValueId b = g.add_op(OpKind::Add, "b", {col, x});
  g.set_outputs({g.add_op(OpKind::Concat, "cat", {a, b}, {{"axis", int64_t{1}}})});
  EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6}),
            (std::vector<TypeParam>{11, 22, 33, 101, 102, 103, 14, 25, 36, 204, 205, 206}));
}

TYPED_TEST(Interpret, SubMulDivPowBroadcast) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 3}));
  const ValueId row = f32_const(g, "row", {3}, {1, 2, 4});
  const ValueId col = f32_const(g, "col", {2, 1}, {2, 3});
  const ValueId s = g.add_op(OpKind::Sub, "s", {x, row});  // x - row
  const ValueId m = g.add_op(OpKind::Mul, "m", {col, s});  // col * (x - row)
  const ValueId d = g.add_op(OpKind::Div, "d", {m, row});  // / row
  g.set_outputs({g.add_op(OpKind::Pow, "p", {d, col})});   // ^ col
  // x = 1..6: x - row = [0 0 -1; 3 3 2]; * col = [0 0 -2; 9 9 6]; / row = [0 0 -0.5; 9 4.5
  // 1.5]; ^ col = [0 0 0.25; 729 91.125 3.375].
  EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6}),
            (std::vector<TypeParam>{0, 0, 0.25, 729, 91.125, 3.375}));
}

TYPED_TEST(Interpret, UnaryFunctions) {
  using T = TypeParam;
  const std::vector<T> x = {-4, -1, -0.25, 0, 0.5, 3, 4};
  auto run1 = [&](OpKind k, Attrs a = {}) {
    Graph g;
    const ValueId in = g.add_input("x", TensorType(DType::F32, {7}));
    g.set_outputs({g.add_op(k, "f", {in}, std::move(a))});
    return this->run(g, x);
  };
  const auto sig = run1(OpKind::Sigmoid), th = run1(OpKind::Tanh), er = run1(OpKind::Erf);
  const auto hs = run1(OpKind::HardSigmoid, {{"alpha", 0.25}, {"beta", 0.5}});
  const auto hw = run1(OpKind::HardSwish);
  const double tol = std::is_same<T, float>::value ? 1e-6 : 1e-14;
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = static_cast<double>(x[i]);
    EXPECT_NEAR(sig[i], 1 / (1 + std::exp(-v)), tol) << v;
    EXPECT_NEAR(th[i], std::tanh(v), tol) << v;
    EXPECT_NEAR(er[i], std::erf(v), tol) << v;
    EXPECT_EQ(hs[i], T(std::min(std::max(0.25 * v + 0.5, 0.0), 1.0))) << v;  // exact here
    EXPECT_NEAR(hw[i], v * std::min(std::max(v / 6 + 0.5, 0.0), 1.0), tol) << v;
  }
  // HardSwish: 0 at and below -3, x at and above 3.
  EXPECT_EQ(hw[0], T(0));
  EXPECT_EQ(hw[5], T(3));
  EXPECT_EQ(hw[6], T(4));
  // Sqrt of a negative number is NaN, as C's.
  Graph g;
  const ValueId in = g.add_input("x", TensorType(DType::F32, {3}));
  g.set_outputs({g.add_op(OpKind::Sqrt, "sqrt", {in})});
  const auto sq = this->run(g, {4, 2.25, -1});
  EXPECT_EQ(sq[0], T(2));
  EXPECT_EQ(sq[1], T(1.5));
  EXPECT_TRUE(std::isnan(sq[2]));
}

TYPED_TEST(Interpret, FlattenAndReshapeKeepTheValues) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 2, 1}));
  const ValueId f = g.add_op(OpKind::Flatten, "flat", {x});
  const ValueId s = g.add_constant("s", TensorType(DType::I32, {2}), ConstData::from_i32({2, 2}));
  g.set_outputs({g.add_op(OpKind::Reshape, "re", {f, s})});
  EXPECT_EQ(this->run(g, {1, -2, 3, -4}), (std::vector<TypeParam>{1, -2, 3, -4}));
  EXPECT_EQ(g.value(g.outputs()[0]).type.shape, (std::vector<int64_t>{2, 2}));
}

TYPED_TEST(Interpret, GemmWithTransposesAndAnMBy1Bias) {
  // M = N = 2 and C of shape [M, 1]: the bias follows the rows.
  Graph g;
  const ValueId a = g.add_input("a", TensorType(DType::F32, {3, 2}));
  const ValueId b = f32_const(g, "b", {2, 3}, {1, 0, 1, 0, 1, 0});
  const ValueId c = f32_const(g, "c", {2, 1}, {10, 20});
  g.set_outputs({g.add_op(OpKind::Gemm, "gemm", {a, b, c},
                          {{"transA", int64_t{1}}, {"transB", int64_t{1}},
                           {"alpha", 2.0}, {"beta", 0.5}})});
  // A = [[1, 3, 5], [2, 4, 6]], B^T = [[1, 0], [0, 1], [1, 0]]: AB = [[6, 3], [8, 4]].
  EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6}), (std::vector<TypeParam>{17, 11, 26, 18}));
}

TYPED_TEST(Interpret, MatMulBroadcastsBatchesAndPromotesVectors) {
  Graph g;
  const ValueId a = g.add_input("a", TensorType(DType::F32, {2, 1, 2}));
  const ValueId b = f32_const(g, "b", {2, 2}, {1, 2, 3, 4});
  const ValueId v = f32_const(g, "v", {2}, {1, -1});
  const ValueId y = g.add_op(OpKind::MatMul, "mm", {a, b});
  g.set_outputs({y, g.add_op(OpKind::MatMul, "mv", {y, v})});
  const auto out = interpret<TypeParam>(g, {{1, 1, 2, 0}});
  EXPECT_EQ(out[0], (std::vector<TypeParam>{4, 6, 2, 4}));
  EXPECT_EQ(out[1], (std::vector<TypeParam>{-2, -2}));
  EXPECT_EQ(g.value(g.outputs()[1]).type.shape, (std::vector<int64_t>{2, 1}));
}

TYPED_TEST(Interpret, QuantizeAndDequantizeLinearRoundLikeOnnx) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {6}));
  const ValueId s = f32_const(g, "s", {}, {1.0f / 32});
  const ValueId z = g.add_constant("z", TensorType(DType::I8, {}), ConstData::from_i8({3}));
  const ValueId q = g.add_op(OpKind::QuantizeLinear, "q", {x, s, z});
  g.set_outputs({q, g.add_op(OpKind::DequantizeLinear, "dq", {q, s, z})});
  Interpreter<TypeParam> interp(g);
  HostValue<TypeParam> in;
  in.shape = {6};
  // 0.1 * 32 = 3.2; 2.5 and 3.5 are ties (to even); 5 * 32 + 3 saturates.
  in.f = {TypeParam(0.1f), -1, 0.5, 2.5 / 32, 3.5 / 32, 5};
  const auto out = interp.run({in});
  EXPECT_EQ(out[0].dtype, DType::I8);
  EXPECT_EQ(out[0].i, (std::vector<int32_t>{6, -29, 19, 5, 7, 127}));
  EXPECT_EQ(out[1].f, (std::vector<TypeParam>{0.09375, -1, 0.5, 0.0625, 0.125, 3.875}));
}

TYPED_TEST(Interpret, QLinearConvRequantizesInDouble) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::I8, {1, 1, 1, 2}));
  auto i8 = [&](const char* n, std::vector<int8_t> v, std::vector<int64_t> shape) {
    return g.add_constant(n, TensorType(DType::I8, std::move(shape)), ConstData::from_i8(v));
  };
  const ValueId xs = f32_const(g, "xs", {}, {0.5f}), ws = f32_const(g, "ws", {}, {0.25f}),
                ys = f32_const(g, "ys", {}, {1.0f});
  const ValueId w = i8("w", {3}, {1, 1, 1, 1});
  const ValueId bias = g.add_constant("bias", TensorType(DType::I32, {1}), ConstData::from_i32({2}));
  g.set_outputs({g.add_op(OpKind::QLinearConv, "qc",
                          {x, xs, i8("xz", {1}, {}), w, ws, i8("wz", {0}, {}), ys,
                           i8("yz", {-1}, {}), bias})});
  Interpreter<TypeParam> interp(g);
  HostValue<TypeParam> in;
  in.dtype = DType::I8;
  in.shape = {1, 1, 1, 2};
  in.i = {5, -9};
  // ((5 - 1) * 3 + 2) * 0.125 = 1.75 -> 2, - 1 = 1; ((-9 - 1) * 3 + 2) * 0.125 = -3.5 -> -4 - 1.
  EXPECT_EQ(interp.run({in})[0].i, (std::vector<int32_t>{1, -5}));
}

TYPED_TEST(Interpret, TheObserverSeesEveryFloatValueInOrder) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2}));
  const ValueId r = g.add_op(OpKind::Relu, "relu", {x});
  const ValueId y = g.add_op(OpKind::Add, "add", {r, x});
  g.set_outputs({y});
  std::vector<std::pair<ValueId, std::vector<TypeParam>>> seen;
  interpret<TypeParam>(g, {{-1, 2}}, [&](ValueId v, const std::vector<TypeParam>& d) {
    seen.emplace_back(v, d);
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::pair<ValueId, std::vector<TypeParam>>{x, {-1, 2}}));
  EXPECT_EQ(seen[1], (std::pair<ValueId, std::vector<TypeParam>>{r, {0, 2}}));
  EXPECT_EQ(seen[2], (std::pair<ValueId, std::vector<TypeParam>>{y, {-1, 4}}));
}

// Records what it was offered; takes the conv (writing ones) and the dense (writing sevens)
// when told to, declines the rest.
template <typename T>
class FakeKernels final : public KernelOverrides<T> {
 public:
  explicit FakeKernels(bool take) : take_(take) {}
  std::vector<std::string> offered;
  bool conv2d(NodeId, bool constant, const T*, const T*, T* y, const Window2d& s,
              int64_t o) override {
    offered.push_back(constant ? "conv2d const" : "conv2d");
    if (take_) std::fill(y, y + s.n * o * s.oh * s.ow, T(1));
    return take_;
  }
  bool dense(const T*, const T*, T* c, int64_t m, int64_t n, int64_t) override {
    offered.push_back("dense");
    if (take_) std::fill(c, c + m * n, T(7));
    return take_;
  }
  bool clip(const T*, T*, int64_t, T, T) override { return note("clip"); }
  bool pool(bool, const T*, T*, const Window2d&, bool) override { return note("pool"); }
  bool global_avg_pool(const T*, T*, int64_t, int64_t) override { return note("gap"); }
  bool batch_norm(const T*, const T*, const T*, const T*, const T*, double, T*, int64_t, int64_t,
                  int64_t) override {
    return note("batch_norm");
  }
  bool unary(const ops::Unary& u, const T*, T*, int64_t) override {
    offered.push_back(u.str());
    return false;
  }
  bool binary(ops::BinaryFn f, const T*, const std::vector<int64_t>&, const T*,
              const std::vector<int64_t>&, T*, const std::vector<int64_t>&) override {
    offered.push_back(ops::binary_name(f));
    return false;
  }

 private:
  bool note(const char* what) {
    offered.push_back(what);
    return false;
  }
  bool take_;
};

TYPED_TEST(Interpret, KernelOverridesTakenOrDeclined) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 1, 2, 2}));
  const ValueId w = f32_const(g, "w", {1, 1, 1, 1}, {3});
  const ValueId b = f32_const(g, "b", {1}, {0.5});
  const ValueId c = g.add_op(OpKind::Conv, "conv", {x, w, b});
  const ValueId r0 = g.add_op(OpKind::Relu, "relu", {c});
  const ValueId r = g.add_op(OpKind::Mul, "mul", {r0, f32_const(g, "one", {1}, {1})});
  const ValueId f = g.add_op(OpKind::Flatten, "flat", {r});
  const ValueId m = f32_const(g, "m", {1, 4}, {1, 1, 1, 1});
  g.set_outputs({g.add_op(OpKind::Gemm, "fc", {f, m}, {{"transB", int64_t{1}}})});
  HostValue<TypeParam> in;
  in.shape = {1, 1, 2, 2};
  in.f = {1, -2, 3, -4};
  // Declined: the loops' result, relu(3x + 0.5) summed: 3.5 + 0 + 9.5 + 0.
  FakeKernels<TypeParam> no(false);
  EXPECT_EQ(Interpreter<TypeParam>(g, &no).run({in})[0].f, std::vector<TypeParam>{13});
  EXPECT_EQ(no.offered, (std::vector<std::string>{"conv2d const", "clip", "mul", "dense"}));
  // Taken: the dense's sevens, then alpha * 7 + beta * 0.
  FakeKernels<TypeParam> yes(true);
  Interpreter<TypeParam> interp(g, &yes);
  EXPECT_EQ(interp.run({in})[0].f, std::vector<TypeParam>{7});
  // The conv's bias is added after a taken conv: its ones become 1.5.
  EXPECT_EQ(interp.value(c).f, (std::vector<TypeParam>{1.5, 1.5, 1.5, 1.5}));
}

// Declines every kernel the interface requires; the fakes below take what they test.
template <typename T>
class DecliningKernels : public KernelOverrides<T> {
 public:
  bool conv2d(NodeId, bool, const T*, const T*, T*, const Window2d&, int64_t) override {
    return false;
  }
  bool dense(const T*, const T*, T*, int64_t, int64_t, int64_t) override { return false; }
  bool clip(const T*, T*, int64_t, T, T) override { return false; }
  bool pool(bool, const T*, T*, const Window2d&, bool) override { return false; }
  bool global_avg_pool(const T*, T*, int64_t, int64_t) override { return false; }
  bool batch_norm(const T*, const T*, const T*, const T*, const T*, double, T*, int64_t, int64_t,
                  int64_t) override {
    return false;
  }
  bool unary(const ops::Unary&, const T*, T*, int64_t) override { return false; }
  bool binary(ops::BinaryFn, const T*, const std::vector<int64_t>&, const T*,
              const std::vector<int64_t>&, T*, const std::vector<int64_t>&) override {
    return false;
  }
};

// Takes B [K, N] as it is: records what it was offered and writes C = A B with the plain loops.
template <typename T>
class KnKernels final : public DecliningKernels<T> {
 public:
  std::vector<std::tuple<NodeId, bool, int64_t>> offered;
  bool dense_kn(NodeId node, bool b_constant, int64_t b_offset, const T* a, const T* b, T* c,
                int64_t m, int64_t n, int64_t k) override {
    offered.emplace_back(node, b_constant, b_offset);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t q = 0; q < k; ++q) s += a[i * k + q] * b[q * n + j];
        c[i * n + j] = s;
      }
    return true;
  }
};

// Leaves every conv's output in blocks of two channels (lanes past C hold -99) and reads its
// input as held; declines unblock, so the interpreter's own loop converts for other readers.
// With `fold`, takes the epilogue it is offered (a residual in the same blocks, ReLU, an
// activation).
template <typename T>
class BlockingKernels final : public DecliningKernels<T> {
 public:
  explicit BlockingKernels(bool fold) : fold_(fold) {}
  int convs = 0, residuals = 0, clips = 0, acts = 0;
  bool conv2d_blocked(NodeId, bool, const HostValue<T>& x, const T* w, const T* bias,
                      HostValue<T>& y, const Window2d& s, int64_t o, int64_t group,
                      ConvEpilogue<T>& ep) override {
    ++convs;
    std::vector<T> plain = x.f;
    if (x.cblock)
      unblock_channels_kernel<T>(x.f.data(), plain.data(), s.n, s.c, s.h * s.w, x.cblock);
    std::vector<T> out(static_cast<size_t>(s.n * o * s.oh * s.ow));
    conv2d_kernel<T>(plain.data(), w, bias, out.data(), s, o, group);
    const int64_t cb = 2, blocks = (o + cb - 1) / cb, plane = s.oh * s.ow;
    y.cblock = cb;
    y.f.assign(static_cast<size_t>(s.n * blocks * plane * cb), T(-99));
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t k = 0; k < o; ++k)
        for (int64_t p = 0; p < plane; ++p)
          y.f[((i * blocks + k / cb) * plane + p) * cb + k % cb] = out[(i * o + k) * plane + p];
    if (fold_ && (!ep.residual || ep.residual->cblock == cb)) {
      for (size_t k = 0; k < y.f.size(); ++k) {
        if (ep.residual) y.f[k] += ep.residual->f[k];
        if (ep.clip) y.f[k] = std::min(std::max(y.f[k], ep.lo), ep.hi);
        if (ep.act) y.f[k] = compiler::ops::apply<T>(*ep.act, y.f[k]);
      }
      residuals += ep.residual != nullptr;
      clips += ep.clip;
      acts += ep.act.has_value();
      ep.applied = true;
    }
    return true;
  }

 private:
  bool fold_;
};

// conv -> relu -> conv -> add(relu, conv) -> clip -> (output, pool, flatten): the blocks pass
// through the convs, the Relu, the Add of equal shapes and the Clip, and every other reader (a
// pool, a flatten, the graph's outputs) sees the logical layout: the same values as the plain
// loops. Taken as the convs' epilogues, the Relu, the Add and the Clip are folded.
TYPED_TEST(Interpret, ValuesInChannelBlocksPassThroughElementWiseNodesAndReachOthersPlain) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 2, 2}));
  const ValueId c1 = g.add_op(
      OpKind::Conv, "c1",
      {x, f32_const(g, "w1", {3, 2, 1, 1}, {1, -1, 2, 0.5, -1, 3}), f32_const(g, "b1", {3}, {0.5, -1, 2})});
  const ValueId r = g.add_op(OpKind::Relu, "r", {c1});
  const ValueId c2 = g.add_op(
      OpKind::Conv, "c2",
      {r, f32_const(g, "w2", {3, 3, 3, 3}, std::vector<float>(81, -0.25f)), f32_const(g, "b2", {3}, {1, 2, 3})},
      {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const ValueId sum = g.add_op(OpKind::Add, "add", {r, c2});
  const ValueId out = g.add_op(OpKind::Clip, "out", {sum},  // bounds as attributes (opset 6)
                               {{"min", -0.5}, {"max", 0.75}});
  const ValueId pooled = g.add_op(OpKind::GlobalAveragePool, "gap", {out});
  g.set_outputs({out, g.add_op(OpKind::Flatten, "flat", {pooled})});
  HostValue<TypeParam> in;
  in.shape = {1, 2, 2, 2};
  in.f = {1, -2, 3, -4, 0.5, 2, -1, 1};
  const auto want = Interpreter<TypeParam>(g).run({in});
  for (bool fold : {false, true}) {
    BlockingKernels<TypeParam> blocking(fold);
    Interpreter<TypeParam> interp(g, &blocking);
    for (int round = 0; round < 2; ++round) {  // the second run reuses the first one's storage
      const auto got = interp.run({in});
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].cblock, 0);
        EXPECT_EQ(got[k].shape, want[k].shape);
        EXPECT_EQ(got[k].f, want[k].f) << "output " << k << ", run " << round << ", fold " << fold;
      }
      EXPECT_EQ(interp.stored(r).cblock, 2);  // read by the conv and the Add: never converted
      for (ValueId v : {r, sum, out}) EXPECT_EQ(interp.folded(g.value(v).producer), fold) << v;
    }
    EXPECT_EQ(blocking.convs, 4);
    EXPECT_EQ(blocking.residuals, fold ? 2 : 0);
    EXPECT_EQ(blocking.clips, fold ? 4 : 0);
  }
}

// EfficientNet's SiLU and squeeze-and-excite on blocked values: conv -> Sigmoid -> Mul(conv,
// sigmoid) -> GlobalAveragePool -> 1x1 conv -> HardSigmoid -> Mul(scale, x) (the per-channel
// operand first, itself held in blocks) -> Div by a plain per-channel constant [3, 1, 1] ->
// Sub from a per-image [1, 3, 1, 1] input, then a HardSwish of a second conv. The unary
// functions and the per-channel binaries keep the blocks (spare lanes included) and the pool
// reads them: the plain loops' values, bit for bit. Taken as the epilogue, the SiLU's Sigmoid
// and Mul and the HardSwish are folded into the convolutions before them, with the same bits;
// the gate's HardSigmoid, though its convolution's only reader, is no activation the epilogue
// takes.
TYPED_TEST(Interpret, ActivationsAndPerChannelScalesKeepChannelBlocks) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 2, 2, 3}));
  const ValueId z = g.add_input("z", TensorType(DType::F32, {1, 3, 1, 1}));
  const ValueId c1 = g.add_op(
      OpKind::Conv, "c1",
      {x, f32_const(g, "w1", {3, 2, 1, 1}, {1, -1, 2, 0.5, -1, 3}), f32_const(g, "b1", {3}, {0.5, -1, 2})});
  const ValueId s1 = g.add_op(OpKind::Sigmoid, "s1", {c1});
  const ValueId silu = g.add_op(OpKind::Mul, "silu", {c1, s1});
  const ValueId gap = g.add_op(OpKind::GlobalAveragePool, "gap", {silu});
  const ValueId c2 = g.add_op(
      OpKind::Conv, "c2",
      {gap, f32_const(g, "w2", {3, 3, 1, 1}, {0.5, -1, 0.25, 2, 1, -0.5, -2, 0.75, 1}),
       f32_const(g, "b2", {3}, {0.1f, -0.2f, 0.3f})});
  const ValueId scale = g.add_op(OpKind::HardSigmoid, "hsig", {c2}, {{"alpha", 0.2}, {"beta", 0.5}});
  const ValueId excited = g.add_op(OpKind::Mul, "excite", {scale, silu});
  const ValueId divided = g.add_op(OpKind::Div, "div", {excited, f32_const(g, "d", {3, 1, 1}, {2, -4, 0.5})});
  const ValueId sub = g.add_op(OpKind::Sub, "sub", {z, divided});
  const ValueId c3 = g.add_op(
      OpKind::Conv, "c3",
      {sub, f32_const(g, "w3", {3, 3, 1, 1}, {1.5, -1, 0.5, 2, 1, -2.5, -2, 0.75, 3}),
       f32_const(g, "b3", {3}, {0.5f, -0.25f, 1})});
  const ValueId hswish = g.add_op(OpKind::HardSwish, "hswish", {c3});
  g.set_outputs({hswish});
  HostValue<TypeParam> in, zin;
  in.shape = {1, 2, 2, 3};
  in.f = {1, -2, 3, -4, 0.5, 2, -1, 1, 0.25, -3, 1.5, 2};
  zin.shape = {1, 3, 1, 1};
  zin.f = {0.5, -1, 2};
  const auto want = Interpreter<TypeParam>(g).run({in, zin});
  for (bool fold : {false, true}) {
    BlockingKernels<TypeParam> blocking(fold);
    Interpreter<TypeParam> interp(g, &blocking);
    for (int round = 0; round < 2; ++round) {
      const auto got = interp.run({in, zin});
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].cblock, 0);
      EXPECT_EQ(got[0].f, want[0].f) << "run " << round << ", fold " << fold;
      for (ValueId v : {silu, scale, excited, divided}) EXPECT_EQ(interp.stored(v).cblock, 2) << v;
      for (ValueId v : {s1, silu, hswish})
        EXPECT_EQ(interp.folded(g.value(v).producer), fold) << v;
      EXPECT_FALSE(interp.folded(g.value(scale).producer));
    }
    EXPECT_EQ(blocking.acts, fold ? 4 : 0);  // two runs of two
  }
}

// A Transpose of a value held in channel blocks (4 channels in blocks of 2) permutes it as it
// is held, for a perm that moves the channels last (ConvNeXt's), first, or leaves them: the
// plain loops' values, and the value itself is never converted.
TYPED_TEST(Interpret, ATransposeOfChannelBlocksReadsThemAsHeld) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 2, 3, 2}));
  const ValueId c = g.add_op(
      OpKind::Conv, "c",
      {x, f32_const(g, "w", {4, 2, 1, 1}, {1, -1, 2, 0.5, -1, 3, 0.25, 2}),
       f32_const(g, "b", {4}, {0.5, -1, 2, 0})});
  std::vector<ValueId> outs;
  for (const std::vector<int64_t>& perm :
       {std::vector<int64_t>{0, 2, 3, 1}, {1, 0, 2, 3}, {0, 1, 3, 2}, {3, 2, 1, 0}})
    outs.push_back(g.add_op(OpKind::Transpose, "t", {c}, {{"perm", perm}}));
  g.set_outputs(outs);
  HostValue<TypeParam> in;
  in.shape = {2, 2, 3, 2};
  for (int k = 0; k < 24; ++k) in.f.push_back(TypeParam(k % 7) - TypeParam(2.5));
  const auto want = Interpreter<TypeParam>(g).run({in});
  BlockingKernels<TypeParam> blocking(false);
  Interpreter<TypeParam> interp(g, &blocking);
  const auto got = interp.run({in});
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].shape, want[k].shape) << k;
    EXPECT_EQ(got[k].f, want[k].f) << k;
  }
  EXPECT_EQ(interp.stored(c).cblock, 2);
}

TYPED_TEST(Interpret, AMatMulOffersBAsItIsWithItsNodeAndWhetherItIsConstant) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 1, 2}));
  const ValueId y = g.add_input("y", TensorType(DType::F32, {2, 2, 1}));
  const ValueId w = f32_const(g, "w", {2, 3}, {1, 2, 3, 4, 5, 6});
  const ValueId lin = g.add_op(OpKind::MatMul, "linear", {x, w});  // [2, 1, 3]
  const ValueId bat = g.add_op(OpKind::MatMul, "batched", {x, y});  // [2, 1, 1]
  g.set_outputs({lin, bat});
  HostValue<TypeParam> hx, hy;
  hx.shape = {2, 1, 2};
  hx.f = {1, 1, 2, 0};
  hy.shape = {2, 2, 1};
  hy.f = {3, 4, 5, 6};
  KnKernels<TypeParam> kn;
  const auto out = Interpreter<TypeParam>(g, &kn).run({hx, hy});
  EXPECT_EQ(out[0].f, (std::vector<TypeParam>{5, 7, 9, 2, 4, 6}));
  EXPECT_EQ(out[1].f, (std::vector<TypeParam>{7, 10}));
  const NodeId nl = g.value(lin).producer, nb = g.value(bat).producer;
  // The linear layer: one product of both rows over the constant B; the batched one: one per
  // slice, B at its slice's offset.
  EXPECT_EQ(kn.offered, (std::vector<std::tuple<NodeId, bool, int64_t>>{
                            {nl, true, 0}, {nb, false, 0}, {nb, false, 2}}));
}

TYPED_TEST(Interpret, KeepingOutputsOnlyFreesEachValueAfterItsLastReader) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2}));
  const ValueId r = g.add_op(OpKind::Relu, "relu", {x});
  const ValueId a = g.add_op(OpKind::Add, "add", {r, x});
  const ValueId y = g.add_op(OpKind::Relu, "relu2", {a});
  g.set_outputs({y, r});
  HostValue<TypeParam> in;
  in.shape = {2};
  in.f = {-1, 2};
  std::vector<ValueId> seen;
  Interpreter<TypeParam> interp(g);
  const auto outs =
      interp.run({in}, [&](ValueId v, const HostValue<TypeParam>&) { seen.push_back(v); },
                 Interpreter<TypeParam>::Keep::kOutputsOnly);
  EXPECT_EQ(outs[0].f, (std::vector<TypeParam>{0, 4}));
  EXPECT_EQ(outs[1].f, (std::vector<TypeParam>{0, 2}));
  EXPECT_EQ(seen, (std::vector<ValueId>{x, r, a, y}));
  EXPECT_THROW(interp.value(a), InternalError);  // read by relu2 only: freed after it
  EXPECT_THROW(interp.value(x), InternalError);  // last read by add
  EXPECT_EQ(interp.value(r).f, (std::vector<TypeParam>{0, 2}));  // an output: kept
  // The default keeps every value.
  Interpreter<TypeParam> all(g);
  all.run({in});
  EXPECT_EQ(all.value(a).f, (std::vector<TypeParam>{-1, 4}));
}

TYPED_TEST(Interpret, StepByStep) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2}));
  const ValueId r = g.add_op(OpKind::Relu, "relu", {x});
  g.set_outputs({r});
  Interpreter<TypeParam> interp(g);
  HostValue<TypeParam> in;
  in.shape = {2};
  in.f = {-1, 1};
  interp.start({in});
  EXPECT_EQ(interp.value(x).f, (std::vector<TypeParam>{-1, 1}));
  const auto& y = interp.run_node(g.node(g.value(r).producer));
  EXPECT_EQ(y.f, (std::vector<TypeParam>{0, 1}));
  EXPECT_EQ(interp.outputs()[0].f, y.f);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

TEST(InterpretErrors, BadInputsAreUserErrorsNamingTheInput) {
  Graph g("net");
  const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 2}));
  g.set_outputs({g.add_op(OpKind::Relu, "relu", {x})});
  EXPECT_EQ(error_of([&] { interpret<float>(g, {}); }),
            "the graph 'net' takes 1 input(s), 0 given");
  EXPECT_EQ(error_of([&] { interpret<float>(g, {{1, 2, 3}}); }),
            "input 'x' has 3 elements, its type " + g.value(x).type.str() + " needs 4");
  HostValue<double> h;
  h.shape = {4};
  h.f = {1, 2, 3, 4};
  EXPECT_EQ(error_of([&] { Interpreter<double>(g).run({h}); }),
            "input 'x' must have shape [2,2], not [4]");
  h.dtype = DType::I8;
  EXPECT_EQ(error_of([&] { Interpreter<double>(g).run({h}); }), "input 'x' must be f32, not i8");
}

TEST(InterpretErrors, ShapesThatDoNotBroadcastAreRefusedNamingTheNode) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4}));
  const ValueId c = f32_const(g, "c", {3}, {1, 2, 3});
  const std::string e = error_of([&] { g.add_op(OpKind::Mul, "mul", {x, c}); });
  EXPECT_NE(e.find("node 'mul' (Mul): shapes"), std::string::npos) << e;
  EXPECT_NE(e.find("do not broadcast"), std::string::npos) << e;
  const ValueId i = g.add_input("i", TensorType(DType::I32, {1, 4}));
  EXPECT_NE(error_of([&] { g.add_op(OpKind::Sigmoid, "sig", {i}); })
                .find("node 'sig' (Sigmoid): the input is i32; the operator takes f32"),
            std::string::npos);
}

TYPED_TEST(Interpret, TransposeSoftmaxReduceMeanLayerNorm) {
  using T = TypeParam;
  {  // [2, 3] -> [3, 2]
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 3}));
    g.set_outputs({g.add_op(OpKind::Transpose, "t", {x}, {{"perm", std::vector<int64_t>{1, 0}}})});
    EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6}), (std::vector<T>{1, 4, 2, 5, 3, 6}));
  }
  {  // Slice: columns [1, 3) of [2, 3]
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 3}));
    g.set_outputs({g.add_op(OpKind::Slice, "sl", {x},
                            {{"axis", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{3}}})});
    EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6}), (std::vector<T>{2, 3, 5, 6}));
  }
  {  // along axis 0 of [2, 2]; 1000 apart would overflow exp without the maximum subtracted
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 2}));
    g.set_outputs({g.add_op(OpKind::Softmax, "s", {x}, {{"axis", int64_t{0}}})});
    const auto y = this->run(g, {1000, 0, 1000, 0});
    for (T v : y) EXPECT_NEAR(v, 0.5, 1e-6);
  }
  {  // mean over axis 1 of [2, 2, 2], keepdims 0
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 2, 2}));
    g.set_outputs({g.add_op(OpKind::ReduceMean, "m", {x},
                            {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}})});
    EXPECT_EQ(g.value(g.outputs()[0]).type.shape, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(this->run(g, {1, 2, 3, 4, 5, 6, 7, 8}), (std::vector<T>{2, 3, 6, 7}));
  }
  {  // rows [1, 3] and [2, 2]: mean 2, variance 1 and 0 (eps 0 and 1e-5 below)
    Graph g;
    const ValueId x = g.add_input("x", TensorType(DType::F32, {2, 2}));
    const ValueId sc = f32_const(g, "sc", {2}, {2, 1});
    const ValueId b = f32_const(g, "b", {2}, {0, 10});
    const Attrs a = {{"axis", int64_t{1}}, {"epsilon", 0.0}};
    Attrs inv = a;
    inv["output"] = int64_t{2};
    inv["epsilon"] = 1e-5;
    g.set_outputs({g.add_op(OpKind::LayerNormalization, "ln", {x, sc, b}, a),
                   g.add_op(OpKind::LayerNormalization, "ln.2", {x, sc, b}, inv)});
    const auto out = interpret<T>(g, {{1, 3, 2, 2}});
    EXPECT_EQ(out[0][0], T(-2));
    EXPECT_EQ(out[0][1], T(11));
    EXPECT_NEAR(out[1][0], 1 / std::sqrt(1 + 1e-5), 1e-6);
    EXPECT_NEAR(out[1][1], 1 / std::sqrt(1e-5), 1e-2);
  }
}

// The mean over trailing axes (its own loop) and over leading or middle ones (the general
// walk) against sums written out in index order, bit for bit.
TEST(ReduceMeanKernel, EveryAxisSetIsTheMeanInIndexOrder) {
  const std::vector<int64_t> xs = {3, 4, 5};
  std::vector<float> x(60);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i) * 0.7f) * 100.f;
  auto at = [&](int64_t a, int64_t b, int64_t c) { return x[(a * 4 + b) * 5 + c]; };
  for (int mask = 1; mask < 8; ++mask) {
    const std::vector<bool> reduced = {(mask & 4) != 0, (mask & 2) != 0, (mask & 1) != 0};
    std::vector<float> want;
    int64_t per = 1;
    for (int d = 0; d < 3; ++d) per *= reduced[d] ? xs[d] : 1;
    for (int64_t a = 0; a < (reduced[0] ? 1 : 3); ++a)
      for (int64_t b = 0; b < (reduced[1] ? 1 : 4); ++b)
        for (int64_t c = 0; c < (reduced[2] ? 1 : 5); ++c) {
          float sum = 0;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 4; ++j)
              for (int64_t k = 0; k < 5; ++k)
                if ((reduced[0] || i == a) && (reduced[1] || j == b) && (reduced[2] || k == c))
                  sum += at(i, j, k);
          want.push_back(sum / float(per));
        }
    std::vector<float> got(want.size());
    reduce_mean_kernel<float>(x.data(), xs, reduced, got.data(), int64_t(got.size()));
    EXPECT_EQ(got, want) << "axes mask " << mask;
  }
}

TEST(InterpretErrors, TransformerOperatorsRefuseBadAttributesNamingTheNode) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4, 6}));
  EXPECT_NE(error_of([&] {
              g.add_op(OpKind::Transpose, "t", {x}, {{"perm", std::vector<int64_t>{0, 0, 1}}});
            }).find("node 't' (Transpose): perm [0,0,1] is not a permutation"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              g.add_op(OpKind::Slice, "sl", {x},
                       {{"axis", int64_t{1}}, {"start", int64_t{2}}, {"end", int64_t{5}}});
            }).find("node 'sl' (Slice): elements [2, 5) are not inside axis 1 of [1,4,6]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { g.add_op(OpKind::Softmax, "s", {x}, {{"axis", int64_t{3}}}); })
                .find("node 's' (Softmax): axis 3 is outside 0..2"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              g.add_op(OpKind::ReduceMean, "m", {x}, {{"axes", std::vector<int64_t>{1, 1}}});
            }).find("node 'm' (ReduceMean): axis 1 is repeated"),
            std::string::npos);
  const ValueId sc = f32_const(g, "sc", {4}, {1, 1, 1, 1});
  EXPECT_NE(error_of([&] {
              g.add_op(OpKind::LayerNormalization, "ln", {x, sc}, {{"axis", int64_t{2}}});
            }).find("node 'ln' (LayerNormalization): the scale [4] does not broadcast"),
            std::string::npos);
  const ValueId z = g.add_input("z", TensorType(DType::F32, {2, 6, 2}));
  const ValueId w = g.add_input("w", TensorType(DType::F32, {3, 4, 6}));
  EXPECT_NE(error_of([&] { g.add_op(OpKind::MatMul, "mm2", {w, z}); })
                .find("node 'mm2' (MatMul): shapes [3] and [2] do not broadcast"),
            std::string::npos);
}

TEST(InterpretErrors, Int8KindsAndBlockedLayoutsAreRefusedNamingTheNode) {
  Graph g;
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4}));
  TensorType qt(DType::I8, {1, 4});
  qt.quant = QuantParams::pow2(-3);
  const NodeId q = g.add_node(OpKind::Quantize, "quant", {x}, {}, {qt});
  g.set_outputs({g.node(q).outputs[0]});
  EXPECT_NE(error_of([&] { interpret<float>(g, {{1, 2, 3, 4}}); })
                .find("node 'quant' (weft.Quantize): the host interpreter runs float graphs"),
            std::string::npos);

  Graph b;
  const ValueId y = b.add_input("y", TensorType(DType::F32, {1, 4}));
  TensorType packed(DType::F32, {1, 4});
  packed.layout = Layout::blocked(1, 4);
  const ValueId k = b.add_constant("k", packed, ConstData::from_f32({1, 2, 3, 4}));
  b.set_outputs({b.add_op(OpKind::Add, "add", {y, k})});
  EXPECT_NE(error_of([&] { interpret<float>(b, {{1, 2, 3, 4}}); })
                .find("node 'add' (Add): input 'k' is in a blocked layout"),
            std::string::npos);
}

}  // namespace
}  // namespace weft::compiler::graph
