// The int8-against-fp32 comparison (quant_error.h): on the input it was calibrated on, a small
// network's int8 values all follow the fp32 ones; calibrated on inputs ten times smaller, every
// scale clips, and the comparison says so from the input on (clipped share, grid cosine, a
// drop at the input's quantization, the layers after it charged only what they add).
#include "compiler/graph/quant_error.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/quantize.h"

namespace weft::compiler::graph {
namespace {

// x -> Conv 3x3 (+bias) -> Relu -> Conv 1x1 -> y, deterministic weights.
Graph two_convs() {
  Graph g("two_convs");
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, 8, 6, 6}));
  auto weights = [&](const std::string& name, std::vector<int64_t> shape, float step) {
    TensorType t(DType::F32, shape);
    std::vector<float> w(static_cast<size_t>(t.elements()));
    for (size_t i = 0; i < w.size(); ++i) w[i] = step * static_cast<float>(int(i * 37 % 17) - 8);
    return g.add_constant(name, t, ConstData::from_f32(w));
  };
  const ValueId c1 = g.add_op(OpKind::Conv, "conv1",
                              {x, weights("w1", {16, 8, 3, 3}, 0.02f), weights("b1", {16}, 0.01f)},
                              {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const ValueId r = g.add_op(OpKind::Relu, "relu", {c1});
  g.set_outputs({g.add_op(OpKind::Conv, "conv2", {r, weights("w2", {8, 16, 1, 1}, 0.05f)})});
  return g;
}

const ValueError* row(const std::vector<ValueError>& rows, const std::string& name) {
  for (const ValueError& r : rows)
    if (r.value == name) return &r;
  return nullptr;
}

TEST(QuantError, CalibratedOnTheInputEveryValueFollowsTheFp32One) {
  const Graph g = two_convs();
  const std::vector<float> x = models::synthetic_input(g.value(g.inputs()[0]).type, 3);
  QuantizeOptions o;
  o.calibration = {{x}};
  const Graph q = quantize(g, o);
  const auto rows = compare_to_fp32(g, q, {x});
  // In the int8 graph's order: the input's quantization, both convolutions and the ReLU
  // between them (named as in the fp32 graph).
  std::vector<std::string> names;
  for (const ValueError& r : rows) names.push_back(r.value);
  EXPECT_EQ(names, (std::vector<std::string>{"x.q", "conv1", "relu", "conv2"}));
  for (const ValueError& r : rows) {
    EXPECT_TRUE(r.int8) << r.value;
    EXPECT_EQ(r.clipped, 0.0) << r.value;
    EXPECT_GT(r.cosine, 0.999) << r.value;
    EXPECT_GT(r.grid_cosine, 0.999) << r.value;
  }
  EXPECT_EQ(row(rows, "conv1")->op, "Conv");
  EXPECT_EQ(row(rows, "conv1")->ran_as, "weft.QConv");
  EXPECT_EQ(row(rows, "x.q")->op, "input");
  EXPECT_EQ(row(rows, "x.q")->ran_as, "weft.Quantize");
}

TEST(QuantError, ACalibrationThatSawSmallerValuesShowsAsClippingAtTheInput) {
  const Graph g = two_convs();
  const std::vector<float> x = models::synthetic_input(g.value(g.inputs()[0]).type, 3);
  std::vector<float> small = x;
  for (float& v : small) v *= 0.1f;
  QuantizeOptions o;
  o.calibration = {{small}};
  const Graph q = quantize(g, o);
  const auto rows = compare_to_fp32(g, q, {x});
  const ValueError* in = row(rows, "x.q");
  ASSERT_NE(in, nullptr);
  EXPECT_GT(in->clipped, 0.5);  // |x| up to 1, the scale's range up to about 0.1
  EXPECT_LT(in->grid_cosine, 0.99);
  EXPECT_DOUBLE_EQ(in->drop, 1.0 - in->cosine);
  EXPECT_GT(in->drop, 0.05);
  const auto j = quant_error_json(rows);
  const auto& drops = j["largest_drops"];
  EXPECT_NE(std::find(drops.begin(), drops.end(), "x.q"), drops.end()) << drops.dump();
  EXPECT_EQ(j["values"].size(), rows.size());
  EXPECT_EQ(j["values"][0]["scale_exponent"], in->exponent);
  // The drop of conv1 is what conv1 itself lost, not what it inherited from x.q.
  EXPECT_LT(row(rows, "conv1")->drop, in->drop);
  const std::string table = quant_error_table(j);
  EXPECT_NE(table.find("grid cos"), std::string::npos) << table;
  EXPECT_NE(table.find("weft.QConv i8"), std::string::npos) << table;
  EXPECT_NE(table.find("largest drops: "), std::string::npos) << table;
  EXPECT_NE(table.find("87.50%"), std::string::npos) << table;  // x.q's clipped share
}

}  // namespace
}  // namespace weft::compiler::graph
