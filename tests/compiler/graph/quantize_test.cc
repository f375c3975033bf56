// The quantizer: an unsupported operator is a user error naming the node; per-channel weights get
// per-channel scales and shifts; a weight with an outlier is per channel without being asked.
#include "compiler/graph/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "compiler/graph/pow2_scales.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

// (A grouped Conv, the example here before, is quantized now: split_groups_test.cc.)
TEST(Quantize, UnsupportedOperatorNamesTheNode) {
  Graph g("computed weight");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4, 3, 3}));
  ValueId w = g.add_input("w", TensorType(DType::F32, {4, 2, 1, 1}));
  g.set_outputs({g.add_op(OpKind::Conv, "gconv", {x, w}, {{"group", int64_t{2}}})});
  try {
    quantize(g);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'gconv' (Conv)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the weight is not a constant"), std::string::npos)
        << e.what();
  }
}

// A MatMul of two activations with equal batch dimensions (attention's Q.K^T) is a batched
// int8 QDense (quantize_matmul.h): its second operand transposed in fp32 and quantized, one
// slice here; one whose batch dimensions broadcast stays in fp32 between a Dequantize of its
// int8 input and the graph's output; the MatMul by a constant is a QDense.
TEST(Quantize, MatMulOfTwoActivations) {
  Graph g("attention");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4}));
  TensorType wt(DType::F32, {4, 4});
  ValueId w = g.add_constant("w", wt, ConstData::from_f32(std::vector<float>(16, 0.1f)));
  ValueId y = g.add_op(OpKind::MatMul, "mm", {x, w});
  ValueId z = g.add_op(OpKind::Concat, "cat", {y, x}, {{"axis", int64_t{1}}});
  ValueId b = g.add_input("b", TensorType(DType::F32, {8, 4}));
  ValueId a = g.add_input("a", TensorType(DType::F32, {2, 3, 8}));
  g.set_outputs({g.add_op(OpKind::MatMul, "mm2", {z, b}), g.add_op(OpKind::MatMul, "mm3", {a, b})});
  const Graph q = quantize(g);
  int dense = 0, batched = 0, fp32_matmul = 0;
  for (const Node& n : q.nodes()) {
    if (n.kind == OpKind::QDense) ++dense;
    if (n.kind == OpKind::QDense && n.facts.slices) {
      ++batched;
      EXPECT_EQ(*n.facts.slices, 1);
      EXPECT_EQ(q.value(n.inputs[1]).type.shape, (std::vector<int64_t>{4, 8}));  // b transposed
    }
    if (n.kind == OpKind::MatMul) {
      ++fp32_matmul;
      EXPECT_EQ(n.name, "mm3");  // [2,3,8] x [8,4]: the batch broadcasts
      EXPECT_EQ(q.value(n.outputs[0]).type.dtype, DType::F32);
    }
  }
  EXPECT_EQ(dense, 2);
  EXPECT_EQ(batched, 1);
  EXPECT_EQ(fp32_matmul, 1);
}

TEST(Quantize, PerChannelScales) {
  Graph g = quantized_resnet(32, 8, 1, /*per_channel=*/true);
  int per_channel = 0;
  for (const Node& n : g.nodes())
    if (!n.dead && n.kind == OpKind::QConv) {
      EXPECT_TRUE(n.facts.shifts.has_value());
      EXPECT_TRUE(g.value(n.inputs[1]).type.quant.per_channel());
      ++per_channel;
    }
  EXPECT_GT(per_channel, 0);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 1);
  EXPECT_EQ(reference_int8(g, {x})[0].size(), 10u);
}

// Rows of normal weights share one exponent; one weight of 2.0 among standard deviation 0.02
// (trunc_normal_'s clamped draw) makes the tensor per channel: that row covers it, the others
// keep a fine grid; with per_channel every row has its own exponent either way.
TEST(Quantize, OutlierWeightIsPerChannel) {
  const int64_t rows = 64, per = 256;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(rows * per);
  for (float& v : w) v = normal(rng);
  const std::vector<int> plain = weight_row_exponents(w.data(), rows, per, false, false);
  for (int e : plain) EXPECT_EQ(e, plain[0]);
  w[5 * per + 7] = 2.0f;
  const std::vector<int> outlier = weight_row_exponents(w.data(), rows, per, false, false);
  EXPECT_EQ(outlier[5], pow2_exponent(2.0) - 1);  // clips 2.0 to 1.98 (least squared error)
  for (int64_t r = 0; r < rows; ++r) {
    if (r == 5) continue;
    EXPECT_LE(outlier[r], outlier[5] - 2) << r;  // a grid 4x finer at least
  }
  // The same weights seen as columns ([per, rows], an output channel a column): the same rule.
  std::vector<float> t(w.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < per; ++i) t[i * rows + r] = w[r * per + i];
  EXPECT_EQ(weight_row_exponents(t.data(), rows, per, true, false), outlier);
  w[5 * per + 7] = normal(rng);
  EXPECT_EQ(weight_row_exponents(w.data(), rows, per, false, true).size(), size_t(rows));
}

// weights_on_grid gives what rounding each weight on its own gives (round_clip of ldexp, the
// quantizer's former loop): ties to even, both clips, infinities, tiny and huge exponents.
TEST(WeightsOnGrid, IsEachWeightRoundedHalfToEvenAndClipped) {
  std::vector<float> w = {0.5f,  1.5f,   2.5f,   -0.5f,  -1.5f, -2.5f,  126.5f, 127.5f,
                          -127.5f, 300.f, -300.f, 1e-30f, -1e-42f, 0.f,  -0.f,   3.25f};
  w.push_back(std::numeric_limits<float>::infinity());
  w.push_back(-std::numeric_limits<float>::infinity());
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 40.f);
  for (int i = 0; i < 1000; ++i) w.push_back(nd(rng));
  for (int e : {-130, -20, -3, 0, 1, 4, 20, 126}) {
    std::vector<float> scaled(w.size());
    for (size_t i = 0; i < w.size(); ++i) scaled[i] = std::ldexp(w[i], e);
    std::vector<int8_t> got(w.size());
    weights_on_grid(scaled.data(), static_cast<int64_t>(w.size()), e, got.data());
    for (size_t i = 0; i < w.size(); ++i)
      EXPECT_EQ(got[i], static_cast<int8_t>(ops::round_clip(std::ldexp(scaled[i], -e), -127.0,
                                                            127.0)))
          << "weight " << scaled[i] << " exponent " << e;
  }
}

}  // namespace
}  // namespace weft::compiler::graph
