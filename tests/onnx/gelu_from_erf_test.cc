// Written-out GELUs (gelu_from_erf.h): torch's five nodes become one Gelu node, in either
// operand order, with the chain's output value kept for its readers; a chain whose
// intermediate value is read elsewhere, or whose constants are not sqrt(2), 1 and 0.5, stays.
// On the float64 interpreter the Gelu gives the chain's values (to rounding).
#include "compiler/graph/onnx/gelu_from_erf.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/interpret.h"

namespace weft::compiler::onnx_import {
namespace {

using graph::DType;
using graph::Graph;
using graph::OpKind;
using graph::TensorType;
using graph::ValueId;

ValueId scalar(Graph& g, const std::string& name, float v) {
  return g.add_constant(name, TensorType(DType::F32, {}), graph::ConstData::from_f32({v}));
}

// x -> [MatMul-like producer: Relu] -> the written-out GELU -> Relu (a reader of its output).
// `swap` writes every commutative operand the other way round; `leak` lets the Erf's output
// also be a graph output; `bad_half` uses 0.25 for the last constant.
struct Chain {
  Graph g{"gelu"};
  ValueId x, y, out;
  Chain(bool swap, bool leak, bool bad_half) {
    const ValueId in = g.add_input("in", TensorType(DType::F32, {2, 3, 5}));
    x = g.add_op(OpKind::Relu, "/mlp/fc/Relu", {in});
    const ValueId d =
        g.add_op(OpKind::Div, "/mlp/act/Div", {x, scalar(g, "sqrt2", 1.4142135381698608f)});
    const ValueId e = g.add_op(OpKind::Erf, "/mlp/act/Erf", {d});
    const ValueId one = scalar(g, "one", 1.0f);
    const ValueId a = g.add_op(OpKind::Add, "/mlp/act/Add",
                               swap ? std::vector<ValueId>{one, e} : std::vector<ValueId>{e, one});
    const ValueId m = g.add_op(OpKind::Mul, "/mlp/act/Mul",
                               swap ? std::vector<ValueId>{a, x} : std::vector<ValueId>{x, a});
    const ValueId half = scalar(g, "half", bad_half ? 0.25f : 0.5f);
    y = g.add_op(OpKind::Mul, "/mlp/act/Mul_1",
                 swap ? std::vector<ValueId>{half, m} : std::vector<ValueId>{m, half});
    out = g.add_op(OpKind::Relu, "next", {y});
    g.set_outputs({out});
    if (leak) g.add_output(e);
  }
};

graph::HostValue<double> input() {
  graph::HostValue<double> h;
  h.shape = {2, 3, 5};
  for (int k = 0; k < 30; ++k) h.f.push_back(0.37 * (k - 11));
  return h;
}

TEST(GeluFromErf, TorchsFiveNodesBecomeOneGeluInEitherOperandOrder) {
  for (bool swap : {false, true}) {
    Chain c(swap, false, false);
    const auto want = graph::Interpreter<double>(c.g).run({input()});
    ASSERT_EQ(gelu_from_erf(c.g), 1) << swap;
    EXPECT_EQ(c.g.count(OpKind::Gelu), 1);
    for (OpKind k : {OpKind::Div, OpKind::Erf, OpKind::Add, OpKind::Mul})
      EXPECT_EQ(c.g.count(k), 0);
    const graph::Node* gelu = c.g.producer(c.y);  // the chain's output value stays
    ASSERT_NE(gelu, nullptr);
    EXPECT_EQ(gelu->kind, OpKind::Gelu);
    EXPECT_EQ(gelu->name, "/mlp/act/Gelu");
    EXPECT_EQ(gelu->inputs, std::vector<ValueId>{c.x});
    EXPECT_EQ(gelu->get_string("approximate", ""), "none");
    const auto got = graph::Interpreter<double>(c.g).run({input()});
    ASSERT_EQ(got[0].f.size(), want[0].f.size());
    for (size_t i = 0; i < got[0].f.size(); ++i) EXPECT_NEAR(got[0].f[i], want[0].f[i], 1e-7) << i;
  }
}

TEST(GeluFromErf, AChainReadElsewhereOrWithOtherConstantsStays) {
  for (auto [leak, bad_half] : {std::pair{true, false}, std::pair{false, true}}) {
    Chain c(false, leak, bad_half);
    EXPECT_EQ(gelu_from_erf(c.g), 0) << leak << bad_half;
    EXPECT_EQ(c.g.count(OpKind::Gelu), 0);
    EXPECT_EQ(c.g.count(OpKind::Erf), 1);
  }
}

}  // namespace
}  // namespace weft::compiler::onnx_import
