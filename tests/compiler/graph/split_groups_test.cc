// Pass split_groups: grouped and depthwise QConvs as block-aligned dense slices, bit-exact.
#include "compiler/graph/passes/split_groups.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/quantize.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"

namespace weft::compiler::graph {
namespace {

std::shared_ptr<const ConstData> random_f32(int64_t count, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = d(rng);
  return ConstData::from_f32(v);
}

// x [1, c, 10, 10] -> grouped conv (o, group, 3x3, stride, pad 1, bias) [-> Add x] -> Relu.
Graph grouped_net(int64_t c, int64_t o, int64_t group, int64_t stride, bool per_channel,
                  bool residual = false) {
  Graph g("grouped");
  const ValueId x = g.add_input("x", TensorType(DType::F32, {1, c, 10, 10}));
  const ValueId w = g.add_constant("w", TensorType(DType::F32, {o, c / group, 3, 3}),
                                   random_f32(o * c / group * 9, 3, 0.4f));
  const ValueId b = g.add_constant("b", TensorType(DType::F32, {o}), random_f32(o, 4, 0.1f));
  ValueId y = g.add_op(OpKind::Conv, "conv", {x, w, b},
                             {{"group", group},
                              {"strides", std::vector<int64_t>{stride, stride}},
                              {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                              {"kernel_shape", std::vector<int64_t>{3, 3}}});
  if (residual) y = g.add_op(OpKind::Add, "add", {y, x});
  g.set_outputs({g.add_op(OpKind::Relu, "relu", {y})});
  QuantizeOptions qo;
  qo.per_channel = per_channel;
  Graph q = quantize(g, qo);
  passes::fuse_epilogues(q);
  return q;
}

TEST(SplitGroups, GroupsPerSlice) {
  EXPECT_EQ(passes::groups_per_slice(32, 1, 1, 16), 16);  // depthwise: 16 channels a slice
  EXPECT_EQ(passes::groups_per_slice(4, 16, 16, 16), 1);  // ResNeXt-like: one group a slice
  EXPECT_EQ(passes::groups_per_slice(32, 4, 4, 16), 4);   // resnext50_32x4d's first stage
  EXPECT_EQ(passes::groups_per_slice(4, 16, 8, 16), 2);   // 8 outputs a group: two a slice
  EXPECT_EQ(passes::groups_per_slice(2, 2, 2, 16), 2);    // too narrow: one dense conv
}

struct Case {
  int64_t c, o, group, stride;
  bool per_channel;
  int slices;
  bool residual = false;
};

TEST(SplitGroups, IsExact) {
  for (const Case& k : {Case{32, 32, 32, 1, false, 2}, Case{48, 48, 48, 2, true, 3},
                        Case{64, 64, 4, 1, false, 4}, Case{64, 32, 4, 1, false, 2},
                        Case{4, 4, 2, 1, true, 1}, Case{32, 32, 32, 1, false, 2, true}}) {
    SCOPED_TRACE("c " + std::to_string(k.c) + " group " + std::to_string(k.group));
    Graph g = grouped_net(k.c, k.o, k.group, k.stride, k.per_channel, k.residual);
    ASSERT_EQ(g.count(OpKind::QConv), 1);
    ASSERT_EQ(g.count(OpKind::Add), 0);  // fused (a residual is sliced with the output channels)
    auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 9);
    const auto before = reference_int8(g, {x})[0];
    int64_t macs = 0;
    for (const Node& n : g.nodes())
      if (!n.dead && n.kind == OpKind::QConv) macs = passes::node_macs(g, n);
    EXPECT_EQ(passes::split_groups(g, isa::layout_for("vta")), 1);
    verify(g, "split_groups");
    EXPECT_EQ(g.count(OpKind::QConv), k.slices);
    EXPECT_EQ(g.count(OpKind::Concat), k.slices > 1 ? 1 : 0);
    EXPECT_EQ(g.count(OpKind::Slice), k.slices > 1 ? (k.residual ? 2 : 1) * k.slices : 0);
    int64_t split_macs = 0;
    for (const Node& n : g.nodes())
      if (!n.dead && n.kind == OpKind::QConv) {
        EXPECT_EQ(n.get_int("group", 1), 1);
        split_macs += passes::node_macs(g, n);
      }
    EXPECT_EQ(split_macs, macs);  // the slices report the layer's own MACs
    EXPECT_EQ(reference_int8(g, {x})[0], before);
  }
}

}  // namespace
}  // namespace weft::compiler::graph
