// Pass fuse_epilogues: ReLU and the residual add fold into the conv, per tensor and per channel,
// and the network stays close to the one before (the int8 reference within the documented
// requantization difference).
#include "compiler/graph/passes/fuse_epilogues.h"

#include <gtest/gtest.h>

#include "compiler/graph/dump.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

TEST(FuseEpilogues, FoldsReluAndResidualAdd) {
  Graph g = quantized_small();
  EXPECT_EQ(g.count(OpKind::Add), 4);
  const int relus = g.count(OpKind::Relu);
  const int fused = passes::fuse_epilogues(g);
  verify(g, "fuse_epilogues");
  EXPECT_EQ(g.count(OpKind::Add), 0);
  EXPECT_EQ(g.count(OpKind::Relu), 0);
  EXPECT_EQ(fused, 4 + relus);
  int with_residual = 0;
  for (const Node& n : g.nodes())
    if (!n.dead && n.kind == OpKind::QConv && n.inputs.size() == 4) ++with_residual;
  EXPECT_EQ(with_residual, 4);
  const std::string t = to_text(g);
  EXPECT_NE(t.find("%layer1.0.conv2 = weft.QConv(%layer1.0.conv1, $layer1.0.conv2.w, "
                   "$layer1.0.conv2.bias, %maxpool) {"),
            std::string::npos)
      << t;
}

TEST(FuseEpilogues, KeepsTheNetworkClose) {
  Graph g = quantized_small();
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 5);
  auto before = reference_int8(g, {x})[0];
  passes::fuse_epilogues(g);
  auto after = reference_int8(g, {x})[0];
  // One rounding instead of two per fused add: logits move by a few of their LSBs at most.
  const float lsb = g.value(g.outputs()[0]).type.dtype == DType::F32 ? 0.125f : 1.0f;
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(before[i], after[i], 8 * lsb);
}

// Per-channel weights: the residual Add and ReLU fuse as well (each channel's shift moves by
// the same difference of exponents, each bias swaps its rounding term), keeping the network as
// close as per tensor.
TEST(FuseEpilogues, PerChannelFoldsResidualAndKeepsTheNetworkClose) {
  Graph g = quantized_resnet(32, 16, 2, /*per_channel=*/true);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 5);
  auto before = reference_int8(g, {x})[0];
  passes::fuse_epilogues(g);
  verify(g, "fuse_epilogues");
  EXPECT_EQ(g.count(OpKind::Add), 0);
  int with_residual = 0;
  for (const Node& n : g.nodes())
    if (!n.dead && n.kind == OpKind::QConv && n.inputs.size() == 4) {
      EXPECT_TRUE(n.facts.shifts.has_value()) << n.name;
      ++with_residual;
    }
  EXPECT_EQ(with_residual, 4);
  auto after = reference_int8(g, {x})[0];
  const float lsb = 0.125f;
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(before[i], after[i], 8 * lsb);
}

}  // namespace
}  // namespace weft::compiler::graph
