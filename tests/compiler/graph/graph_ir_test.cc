// The graph IR: building with type inference, the verifier (types, cycles, broken
// invariants), topological order, pruning and the text/JSON dumps.
#include <gtest/gtest.h>

#include <limits>

#include "compiler/graph/dump.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/infer.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {
namespace {

ValueId weight(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  TensorType t(DType::F32, shape);
  return g.add_constant(name, t, ConstData::from_f32(std::vector<float>(t.elements(), 0.5f)));
}

Graph small() {
  Graph g("small");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 3, 8, 8}));
  ValueId w = weight(g, "w", {4, 3, 3, 3});
  ValueId c = g.add_op(OpKind::Conv, "conv", {x, w},
                       {{"strides", std::vector<int64_t>{2, 2}},
                        {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  ValueId r = g.add_op(OpKind::Relu, "relu", {c});
  ValueId p = g.add_op(OpKind::MaxPool, "pool", {r},
                       {{"kernel_shape", std::vector<int64_t>{2, 2}},
                        {"strides", std::vector<int64_t>{2, 2}}});
  g.set_outputs({p});
  return g;
}

TEST(GraphIr, InfersShapesAndVerifies) {
  Graph g = small();
  verify(g);
  ValueId out = g.outputs()[0];
  EXPECT_EQ(g.value(out).type.shape, (std::vector<int64_t>{1, 4, 2, 2}));
  EXPECT_EQ(g.topo_order().size(), 3u);
  EXPECT_EQ(g.count(OpKind::Conv), 1);
}

TEST(GraphIr, TextDump) {
  Graph g = small();
  std::string t = to_text(g);
  EXPECT_NE(t.find("input %x: f32[1,3,8,8] NCHW"), std::string::npos) << t;
  EXPECT_NE(t.find("%conv = Conv(%x, $w) {pads=[1,1,1,1], strides=[2,2]} : f32[1,4,4,4] NCHW"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("output %pool"), std::string::npos) << t;
}

TEST(GraphIr, JsonDump) {
  Graph g = small();
  auto j = to_json(g);
  ASSERT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["nodes"][0]["op"], "Conv");
  EXPECT_EQ(j["nodes"][2]["outputs"][0]["type"]["shape"], (std::vector<int64_t>{1, 4, 2, 2}));
  EXPECT_EQ(j["constants"][0]["type"]["bytes"], 4 * 3 * 3 * 3 * 4);
}

TEST(GraphIr, BadOperatorInputsNameTheNode) {
  Graph g("bad");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 3, 8, 8}));
  ValueId w = weight(g, "w", {4, 5, 3, 3});
  try {
    g.add_op(OpKind::Conv, "c1", {x, w});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'c1' (Conv): weight [4,5,3,3] does not fit input channels 3"), std::string::npos)
        << e.what();
  }
}

// A pad of 2^63 - 1 overflowed the output size (found by fuzz_onnx under UBSan).
TEST(GraphIr, WindowAttributesOutOfRangeNameTheNode) {
  Graph g("bad");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 3, 8, 8}));
  ValueId w = weight(g, "w", {4, 3, 3, 3});
  auto message = [&](const std::string& name, const Attrs& attrs) {
    try {
      g.add_op(OpKind::Conv, name, {x, w}, attrs);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(message("c1", {{"pads", std::vector<int64_t>{huge, 0, 16, 0}}}),
            "node 'c1' (Conv): pads [" + std::to_string(huge) + ",0,16,0] must lie in 0..1048576");
  EXPECT_EQ(message("c2", {{"strides", std::vector<int64_t>{0, 1}}}),
            "node 'c2' (Conv): strides [0,1] must lie in 1..1048576");
  EXPECT_EQ(message("c3", {{"dilations", std::vector<int64_t>{1, int64_t{1} << 40}}}),
            "node 'c3' (Conv): dilations [1,1099511627776] must lie in 1..1048576");
}

// 16 x (2^63 - 1) elements overflowed Flatten's product (found by fuzz_onnx under UBSan).
TEST(GraphIr, ShapesPastTwoToTheFortyElementsAreRefused) {
  Graph g("huge");
  const int64_t huge = std::numeric_limits<int64_t>::max();
  ValueId x = g.add_input("x", TensorType(DType::F32, {16, huge}));
  try {
    g.add_op(OpKind::Flatten, "flat", {x}, {{"axis", int64_t{0}}});
    FAIL() << "Flatten accepted " << huge;
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "node 'flat' (Flatten): the input [16," +
                                         std::to_string(huge) + "] has more than 2^40 elements");
  }
  int64_t n = 0;
  EXPECT_FALSE(count_elements({16, huge}, &n));
  EXPECT_FALSE(count_elements({int64_t{1} << 21, int64_t{1} << 20}, &n));
  EXPECT_TRUE(count_elements({int64_t{1} << 20, int64_t{1} << 20}, &n));
  EXPECT_EQ(n, kMaxTensorElements);
  EXPECT_TRUE(count_elements({huge, 0}, &n));
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(count_elements({4, -1}, &n));
}

TEST(GraphIr, CycleIsAUserError) {
  Graph g = small();
  // Make the conv read the pool's output: conv -> relu -> pool -> conv.
  NodeId conv = g.value(g.outputs()[0]).producer - 2;
  ASSERT_EQ(g.node(conv).kind, OpKind::Conv);
  g.node(conv).inputs[0] = g.outputs()[0];
  try {
    verify(g, "test");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle through node 'conv'"), std::string::npos) << e.what();
  }
}

TEST(GraphIr, ScheduleOrderIsATopologicalOrderAndNamesACycle) {
  Graph g = small();
  EXPECT_EQ(g.schedule_order().size(), g.topo_order().size());
  NodeId conv = g.value(g.outputs()[0]).producer - 2;
  g.node(conv).inputs[0] = g.outputs()[0];
  EXPECT_THROW(g.schedule_order(), UserError);
}

TEST(GraphIr, WrongStoredTypeIsInternal) {
  Graph g = small();
  g.value(g.outputs()[0]).type.shape = {1, 4, 3, 3};
  EXPECT_THROW(verify(g, "test"), InternalError);
}

TEST(GraphIr, PruneDropsWhatDoesNotReachAnOutput) {
  Graph g = small();
  ValueId relu = g.value(g.outputs()[0]).producer - 1;
  g.set_outputs({g.node(relu).outputs[0]});
  g.prune();
  verify(g);
  EXPECT_EQ(g.count(OpKind::MaxPool), 0);
  EXPECT_EQ(g.topo_order().size(), 2u);
}

TEST(GraphIr, ReplaceUsesAndErase) {
  Graph g = small();
  NodeId relu = g.value(g.outputs()[0]).producer - 1;
  g.replace_uses(g.node(relu).outputs[0], g.node(relu).inputs[0]);
  g.erase_node(relu);
  g.prune();
  verify(g);
  EXPECT_EQ(g.count(OpKind::Relu), 0);
}

TEST(GraphIr, PackedTypesAndQuant) {
  TensorType t(DType::I8, {1, 3, 4, 4});
  t.layout = Layout::blocked(1, 16);
  t.quant = QuantParams::pow2(-5);
  EXPECT_EQ(t.stored_elements(), 16 * 16);
  EXPECT_EQ(t.str(), "i8[1,3,4,4] NCHW1n16c q=2^-5");
  EXPECT_TRUE(t.quant.is_pow2());
  EXPECT_EQ(t.quant.exponent(), -5);
  QuantParams q;
  q.scale = {0.3f};
  EXPECT_FALSE(q.is_pow2());
}

TEST(GraphIr, OperatorNames) {
  OpKind k;
  ASSERT_TRUE(op_from_name("GlobalAveragePool", &k));
  EXPECT_EQ(k, OpKind::GlobalAveragePool);
  EXPECT_STREQ(op_name(OpKind::AccelConv), "weft.AccelConv");
  EXPECT_FALSE(op_from_name("LSTM", &k));
}

}  // namespace
}  // namespace weft::compiler::graph
