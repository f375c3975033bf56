// Written-out LayerNorms (layer_norm_from_parts.h): torch's nine nodes over the last axis
// become one LayerNormalization node, with and without the bias, in either operand order of
// the Add and Mul nodes; a chain whose intermediate value is read elsewhere, whose exponent is
// not 2 or whose reduction is not over the last axis stays. On the float64 interpreter the
// node gives the chain's values (to rounding).
#include "compiler/graph/onnx/layer_norm_from_parts.h"

#include <gtest/gtest.h>

#include "compiler/graph/interpret.h"

namespace weft::compiler::onnx_import {
namespace {

using graph::DType;
using graph::Graph;
using graph::OpKind;
using graph::TensorType;
using graph::ValueId;

ValueId f32(Graph& g, const std::string& name, std::vector<int64_t> shape,
            const std::vector<float>& v) {
  return g.add_constant(name, TensorType(DType::F32, std::move(shape)),
                        graph::ConstData::from_f32(v));
}

struct Options {
  bool swap = false, bias = true, leak = false;
  float exponent = 2.0f;
  int64_t axis = 2;
};

// x [2, 3, 5] -> Relu -> the written-out LayerNorm over the last axis -> Relu.
struct Chain {
  Graph g{"layer_norm"};
  ValueId x, y;
  explicit Chain(const Options& o) {
    const ValueId in = g.add_input("in", TensorType(DType::F32, {2, 3, 5}));
    x = g.add_op(OpKind::Relu, "/pre/Relu", {in});
    auto pair = [&](ValueId a, ValueId b) {
      return o.swap ? std::vector<ValueId>{b, a} : std::vector<ValueId>{a, b};
    };
    const graph::Attrs mean_attrs{{"axes", std::vector<int64_t>{o.axis}}, {"keepdims", int64_t{1}}};
    const ValueId mean = g.add_op(OpKind::ReduceMean, "/ln/ReduceMean", {x}, mean_attrs);
    const ValueId d = g.add_op(OpKind::Sub, "/ln/Sub", {x, mean});
    const ValueId p = g.add_op(OpKind::Pow, "/ln/Pow", {d, f32(g, "two", {}, {o.exponent})});
    const ValueId var = g.add_op(OpKind::ReduceMean, "/ln/ReduceMean_1", {p}, mean_attrs);
    const ValueId a = g.add_op(OpKind::Add, "/ln/Add", pair(var, f32(g, "eps", {}, {1e-6f})));
    const ValueId s = g.add_op(OpKind::Sqrt, "/ln/Sqrt", {a});
    const ValueId n = g.add_op(OpKind::Div, "/ln/Div", {d, s});
    y = g.add_op(OpKind::Mul, "/ln/Mul",
                 pair(n, f32(g, "gamma", {5}, {1.5f, -0.5f, 2.0f, 0.25f, 1.0f})));
    if (o.bias)
      y = g.add_op(OpKind::Add, "/ln/Add_1",
                   pair(y, f32(g, "beta", {5}, {0.1f, 0.2f, -0.3f, 0.0f, 1.0f})));
    g.set_outputs({g.add_op(OpKind::Relu, "next", {y})});
    if (o.leak) g.add_output(s);
  }
};

graph::HostValue<double> input() {
  graph::HostValue<double> h;
  h.shape = {2, 3, 5};
  for (int k = 0; k < 30; ++k) h.f.push_back(0.37 * ((k * 7) % 13));
  return h;
}

TEST(LayerNormFromParts, TorchsNineNodesBecomeOneLayerNormalization) {
  for (bool swap : {false, true}) {
    for (bool bias : {true, false}) {
      Options o;
      o.swap = swap, o.bias = bias;
      Chain c(o);
      const auto want = graph::Interpreter<double>(c.g).run({input()});
      ASSERT_EQ(layer_norm_from_parts(c.g), 1) << swap << bias;
      EXPECT_EQ(c.g.count(OpKind::LayerNormalization), 1);
      for (OpKind k : {OpKind::ReduceMean, OpKind::Sub, OpKind::Pow, OpKind::Sqrt, OpKind::Div,
                       OpKind::Mul, OpKind::Add})
        EXPECT_EQ(c.g.count(k), 0);
      const graph::Node* ln = c.g.producer(c.y);  // the chain's output value stays
      ASSERT_NE(ln, nullptr);
      EXPECT_EQ(ln->name, "/ln/LayerNormalization");
      EXPECT_EQ(ln->inputs.size(), bias ? 3u : 2u);
      EXPECT_EQ(ln->inputs[0], c.x);
      EXPECT_EQ(ln->get_int("axis", -1), 2);
      EXPECT_NEAR(ln->get_float("epsilon", 0), 1e-6, 1e-12);
      const auto got = graph::Interpreter<double>(c.g).run({input()});
      ASSERT_EQ(got[0].f.size(), want[0].f.size());
      for (size_t i = 0; i < got[0].f.size(); ++i)
        EXPECT_NEAR(got[0].f[i], want[0].f[i], 1e-6) << i;
    }
  }
}

TEST(LayerNormFromParts, AChainReadElsewhereOrOfAnotherFormStays) {
  Options leak, cube, middle;
  leak.leak = true;
  cube.exponent = 3.0f;
  middle.axis = 1;
  for (const Options& o : {leak, cube, middle}) {
    Chain c(o);
    EXPECT_EQ(layer_norm_from_parts(c.g), 0);
    EXPECT_EQ(c.g.count(OpKind::LayerNormalization), 0);
    EXPECT_EQ(c.g.count(OpKind::ReduceMean), 2);
  }
}

}  // namespace
}  // namespace weft::compiler::onnx_import
