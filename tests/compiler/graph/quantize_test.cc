// The quantizer: an unsupported operator is a user error naming the node; per-channel weights get
// per-channel scales and shifts.
#include "compiler/graph/quantize.h"

#include <gtest/gtest.h>

#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

TEST(Quantize, UnsupportedOperatorNamesTheNode) {
  Graph g("lstm");
  ValueId x = g.add_input("x", TensorType(DType::F32, {1, 4}));
  TensorType wt(DType::F32, {4, 4});
  ValueId w = g.add_constant("w", wt, ConstData::from_f32(std::vector<float>(16, 0.1f)));
  ValueId y = g.add_op(OpKind::MatMul, "mm", {x, w});
  ValueId z = g.add_op(OpKind::Concat, "cat", {y, x}, {{"axis", int64_t{1}}});
  // Clip is quantized since the int8 clamp; a MatMul by a computed tensor is not.
  ValueId b = g.add_input("b", TensorType(DType::F32, {8, 4}));
  ValueId c = g.add_op(OpKind::MatMul, "mm2", {z, b});
  g.set_outputs({c});
  try {
    quantize(g);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'mm2' (MatMul)"), std::string::npos) << e.what();
  }
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

}  // namespace
}  // namespace weft::compiler::graph
