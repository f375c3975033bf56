// The graph pipeline on small ResNets: batch norms folded, every conv fused with its bias,
// residual add and ReLU, packing only at region edges, a memory plan without overlaps, and
// the int8 network close to the fp32 one (cosine similarity, top-1 agreement).
#include "compiler/graph/pipeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "compiler/graph/dump.h"
#include "compiler/graph/interpret.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {
namespace {

models::ResNetOptions small_net() {
  models::ResNetOptions o;
  o.image = 32;
  o.width = 16;
  o.classes = 10;
  o.stages = 2;
  return o;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST(GraphPipeline, ResNet18Structure) {
  Graph g = models::resnet18();
  verify(g);
  EXPECT_EQ(g.count(OpKind::Conv), 20);
  EXPECT_EQ(g.count(OpKind::BatchNormalization), 20);
  EXPECT_EQ(g.count(OpKind::Add), 8);
  EXPECT_EQ(g.value(g.outputs()[0]).type.shape, (std::vector<int64_t>{1, 1000}));
}

// A configuration whose output blocks differ from its input blocks (weft dse sweeps them) is a
// named user error before any pass runs, not pack_layouts' internal error.
TEST(GraphPipeline, UnequalChannelBlocksAreAUserErrorBeforeAnyPass) {
  isa::HwConfig c = isa::find_config("vta");
  c.name = "wide_out";
  c.log_block_out += 1;
  const isa::Layout l = isa::derive_layout(c);
  int passes = 0;
  try {
    compile_graph(models::resnet18(small_net()), l, isa::find_platform("sim"), {},
                  [&](const std::string&, const Graph&) { ++passes; });
    FAIL() << "compiled";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("configuration 'wide_out' has block_in 16 and block_out 32"),
              std::string::npos) << e.what();
  }
  EXPECT_EQ(passes, 0);
}

TEST(GraphPipeline, EveryPassOnASmallResNet) {
  Graph g = models::resnet18(small_net());
  const isa::Layout& l = isa::layout_for("vta");
  std::vector<std::string> seen;
  GraphCompileOptions o;
  o.cpu_gmacs = 0.01;  // so small that every conv and dense goes to the accelerator
  CompiledGraph c = compile_graph(g, l, isa::find_platform("sim"), o,
                                  [&](const std::string& p, const Graph&) { seen.push_back(p); });
  EXPECT_EQ(seen, graph_pass_names());
  const Graph& q = c.graph;
  // 1 stem + 2 stages x 2 blocks x 2 convs + 1 downsample, and the fc.
  EXPECT_EQ(q.count(OpKind::AccelConv), 1 + 8 + 1);
  EXPECT_EQ(q.count(OpKind::AccelDense), 1);
  EXPECT_EQ(q.count(OpKind::Add), 0) << to_text(q);   // every residual add fused
  EXPECT_EQ(q.count(OpKind::Relu), 0) << to_text(q);
  // Pack: the fc's input only (fold_packs: the stem's im2col and the max pool write their
  // packed outputs themselves); Unpack: the stem's output (for the max pool), the last
  // stage's (for the average pool) and the fc's.
  EXPECT_EQ(q.count(OpKind::Pack), 1) << to_text(q);
  for (const Node& n : q.nodes())
    if (!n.dead && (n.kind == OpKind::Im2Col || n.kind == OpKind::MaxPool)) {
      EXPECT_EQ(q.value(n.outputs[0]).type.layout, Layout::blocked(1, 16)) << n.name;
    }
  EXPECT_EQ(q.count(OpKind::Quantize), 0) << to_text(q);  // the im2col quantizes as it gathers
  EXPECT_EQ(q.count(OpKind::Unpack), 3) << to_text(q);
  EXPECT_GT(c.plan.device_arena, 0);
  EXPECT_LT(c.plan.device_arena, c.plan.unshared_device);
}

// The full ResNet-18, batch 1 int8 on `vta`: stem_im2col splits conv1 into row bands; the
// schedule order (the executor's, and plan_memory's lifetimes) runs each band's chain
// im2col -> conv -> unpack before the next band's im2col, so one gathered band is live at a
// time (the host arena fell from 2,283,008 B with the id-ordered topological order to
// 1,605,632 B); fold_packs has each band's im2col write the packed layout straight into the
// device arena (quantizing the f32 input as it gathers); band_pool runs the max pool in the
// same bands (a 1-row halo from the band before), each band's pool writing its rows of the
// packed max pool output in the device arena; plan_memory unpacks each band straight into its
// pool's input window (Concats in place): the host holds one window and one halo.
TEST(GraphPipeline, ResNet18StemBandsInterleaveAndArenasFit) {
  const CompiledGraph c = compile_graph(models::resnet18(), isa::layout_for("vta"),
                                        isa::find_platform("sim"), {});
  const Graph& q = c.graph;
  const std::vector<NodeId> order = q.schedule_order();
  ASSERT_EQ(order.size(), q.topo_order().size());
  std::map<NodeId, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  std::vector<NodeId> im2col, conv;  // per band, in schedule order
  for (NodeId id : order) {
    if (q.node(id).kind != OpKind::Im2Col) continue;
    im2col.push_back(id);
    EXPECT_EQ(q.value(q.node(id).outputs[0]).type.layout, Layout::blocked(1, 16));
    EXPECT_EQ(q.value(q.node(id).inputs[0]).type.dtype, DType::F32);  // the graph's input
    const auto convs = q.consumers(q.node(id).outputs[0]);
    ASSERT_EQ(convs.size(), 1u);
    ASSERT_EQ(q.node(convs[0]).kind, OpKind::AccelConv);
    conv.push_back(convs[0]);
  }
  ASSERT_EQ(im2col.size(), 4u);  // 4 bands of 28 rows, each gathered band under 512 KiB
  for (size_t b = 0; b + 1 < im2col.size(); ++b)
    EXPECT_LT(pos[conv[b]], pos[im2col[b + 1]]) << "band " << b << " not finished before the next";
  EXPECT_EQ(q.count(OpKind::MaxPool), 4);
  // Views: bands 1-3 unpacked into row 1 of their pool's window (row 0: the halo, copied in);
  // the 4 pools' packed outputs at rows 0, 14, 28, 42 of the joined max pool output.
  int host_views = 0, device_views = 0;
  for (const auto& [v, pl] : c.plan.values) {
    if (pl.view_of == kNone) continue;
    if (pl.device) {
      EXPECT_EQ(q.value(pl.view_of).name, "maxpool");
      EXPECT_EQ(pl.view_at, 14 * device_views++);
    } else {
      EXPECT_EQ(q.value(pl.view_of).name.rfind("maxpool.in.rows", 0), 0u);
      EXPECT_EQ(pl.view_at, 1);
      ++host_views;
    }
  }
  EXPECT_EQ(host_views, 3);
  EXPECT_EQ(device_views, 4);
  // Deterministic bytes (the plan depends only on shapes and the order). Device: one band's
  // packed im2col (501,760 B), its conv output (200,704 B) and the max pool output being
  // filled (200,704 B); host: a 29-row window (207,872 B) and the next band's halo (7,168 B).
  EXPECT_EQ(c.plan.device_arena, 903168);
  EXPECT_EQ(c.plan.host_arena, 215040);
  // The target: the activation arenas of ResNet-18 batch 1 int8 together at most 1.7 MB.
  EXPECT_LE(c.plan.device_arena + c.plan.host_arena, 1700000);
}

TEST(GraphPipeline, QuantizedIsCloseToFp32) {
  Graph g = models::resnet18(small_net());
  CompiledGraph c = compile_graph(g, isa::layout_for("vta"), isa::find_platform("sim"), {});
  int agree = 0;
  double worst = 1;
  for (uint32_t s = 0; s < 8; ++s) {
    auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 100 + s);
    auto f = interpret<float>(g, {x})[0];
    auto q = reference_int8(c.graph, {x})[0];
    worst = std::min(worst, cosine(f, q));
    agree += std::max_element(f.begin(), f.end()) - f.begin() ==
             std::max_element(q.begin(), q.end()) - q.begin();
  }
  // The floor (docs/graph.md): 8-bit power-of-two scales lose at most ~1 bit of range per
  // tensor; measured worst cosine ~0.9996 on these inputs, so 0.99 catches a wrong scale or
  // shift (which drops it below 0.5) without flaking on rounding.
  EXPECT_GT(worst, 0.99);
  EXPECT_GE(agree, 7);
}

}  // namespace
}  // namespace weft::compiler::graph
