// The graph passes one at a time, before/after: fuse_epilogues folds ReLU and the residual add
// into the conv (and keeps the function: the int8 reference gives the same logits within the
// documented requantization difference), stem_space_to_depth is exact, pack_layouts packs only
// at region edges, plan_memory never overlaps two live values and reuses memory.
#include <gtest/gtest.h>

#include "compiler/graph/dump.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/passes/band_pool.h"
#include "compiler/graph/passes/fold_packs.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/pack_layouts.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/passes/plan_memory.h"
#include "compiler/graph/passes/stem_im2col.h"
#include "compiler/graph/passes/stem_space_to_depth.h"
#include "compiler/graph/quantize.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "compiler/ops/channel_shifts.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {
namespace {

// A small quantized ResNet (10 classes): image x image inputs, `width` channels in stage 1.
Graph quantized_resnet(int64_t image, int64_t width, int stages, bool per_channel = false) {
  models::ResNetOptions o;
  o.image = image;
  o.width = width;
  o.classes = 10;
  o.stages = stages;
  QuantizeOptions qo;
  qo.per_channel = per_channel;
  return quantize(models::resnet18(o), qo);
}

Graph quantized_small() { return quantized_resnet(32, 16, 2); }

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
      EXPECT_TRUE(n.has("shifts")) << n.name;
      ++with_residual;
    }
  EXPECT_EQ(with_residual, 4);
  auto after = reference_int8(g, {x})[0];
  const float lsb = 0.125f;
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(before[i], after[i], 8 * lsb);
}

TEST(StemSpaceToDepth, IsExact) {
  Graph g = quantized_resnet(64, 16, 1);
  passes::fuse_epilogues(g);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 9);
  auto before = reference_int8(g, {x})[0];
  EXPECT_EQ(passes::stem_space_to_depth(g, isa::layout_for("vta")), 1);
  verify(g, "stem_space_to_depth");
  EXPECT_EQ(g.count(OpKind::SpaceToDepth), 1);
  EXPECT_EQ(reference_int8(g, {x})[0], before);
  const std::string t = to_text(g);
  EXPECT_NE(t.find("%conv1.s2d = weft.SpaceToDepth(%data.q) {block=2, out_h=35, out_w=35, "
                   "pads=[3,3,3,3]} : i8[1,12,35,35]"),
            std::string::npos)
      << t;
  // gemm8x8 (8 lanes): 12 channels fill two blocks; still fewer executed MACs than 49 x 8.
  Graph g2 = quantized_resnet(64, 16, 1);
  EXPECT_EQ(passes::stem_space_to_depth(g2, isa::layout_for("gemm8x8")), 1);
}

TEST(StemIm2Col, IsExactWholeAndInBands) {
  Graph g = quantized_resnet(64, 16, 1);
  passes::fuse_epilogues(g);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 9);
  auto before = reference_int8(g, {x})[0];
  // One band: 147 gathered channels (10 blocks of 16 lanes) beat 16 taps x 16 lanes.
  Graph whole = g;
  EXPECT_EQ(passes::stem_im2col(whole, isa::layout_for("vta")), 1);
  verify(whole, "stem_im2col");
  EXPECT_EQ(whole.count(OpKind::Im2Col), 1);
  EXPECT_EQ(whole.count(OpKind::Concat), 0);
  EXPECT_EQ(reference_int8(whole, {x})[0], before);
  EXPECT_EQ(passes::stem_space_to_depth(whole, isa::layout_for("vta")), 0);
  const std::string t = to_text(whole);
  // The bias folded into two of the 13 free lanes (constant channels 1 and 64): no bias input.
  EXPECT_NE(t.find("%conv1.im2col = weft.Im2Col(%data.q) {consts=[1,64], kernel=7, out_h=32, "
                   "out_w=32, pads=[3,3,3,3], stride=2, y0=0} : i8[1,149,32,32]"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("%conv1 = weft.QConv(%conv1.im2col, $conv1.w.im2col) {"), std::string::npos) << t;
  // Bands: each band's gathered input within 40 KB -> 4 bands of 8 rows and a Concat.
  Graph banded = g;
  EXPECT_EQ(passes::stem_im2col(banded, isa::layout_for("vta"), 40000), 1);
  verify(banded, "stem_im2col");
  EXPECT_EQ(banded.count(OpKind::Im2Col), 4);
  EXPECT_EQ(banded.count(OpKind::Concat), 1);
  EXPECT_EQ(reference_int8(banded, {x})[0], before);
  // A budget below one output row leaves the stem to stem_space_to_depth.
  Graph none = g;
  EXPECT_EQ(passes::stem_im2col(none, isa::layout_for("vta"), 1000), 0);
  // gemm8x8 (8 lanes): 152 lanes for 147 taps, fewer than space-to-depth's 16 x 16.
  Graph g8 = g;
  EXPECT_EQ(passes::stem_im2col(g8, isa::layout_for("gemm8x8")), 1);
}

TEST(PackLayouts, PacksOnlyAtRegionEdges) {
  Graph g = quantized_small();
  passes::fuse_epilogues(g);
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  passes::pack_layouts(g, isa::layout_for("vta"));
  verify(g, "pack_layouts");
  for (const Node& n : g.nodes()) {
    if (n.dead || n.kind != OpKind::AccelConv) continue;
    for (size_t i : {size_t{0}, size_t{3}}) {
      if (i < n.inputs.size()) {
        EXPECT_EQ(g.value(n.inputs[i]).type.layout, Layout::blocked(1, 16)) << n.name;
      }
    }
    EXPECT_EQ(g.value(n.inputs[1]).type.layout, Layout::blocked(16, 16)) << n.name;
  }
  EXPECT_EQ(g.count(OpKind::Pack), 3);
}

TEST(PlanMemory, NoOverlapAndReuse) {
  Graph g = quantized_small();
  passes::fuse_epilogues(g);
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  passes::pack_layouts(g, isa::layout_for("vta"));
  passes::MemoryPlan p = passes::plan_memory(g);
  passes::check_memory_plan(p);
  EXPECT_LT(p.device_arena, p.unshared_device);
  EXPECT_LT(p.host_arena, p.unshared_host);
  for (const auto& [v, pl] : p.values) EXPECT_EQ(pl.offset % (pl.device ? 256 : 64), 0);
  // A deliberately broken plan is caught.
  passes::Placement* a = nullptr;
  passes::Placement* b = nullptr;
  for (auto& [v, x] : p.values)
    for (auto& [u, y] : p.values)
      if (!a && v < u && x.device == y.device && !(x.last < y.first || y.last < x.first)) {
        a = &x;
        b = &y;
      }
  ASSERT_NE(a, nullptr);
  b->offset = a->offset;
  EXPECT_THROW(passes::check_memory_plan(p), InternalError);
}

// fold_packs: the stem's im2col (quantizing the f32 input as it gathers) and the max pool write
// their packed outputs themselves; the network computes the same (bit for bit).
TEST(FoldPacks, ImColAndPoolWritePackedAndQuantizeFolds) {
  Graph g = quantized_small();
  passes::fuse_epilogues(g);
  passes::stem_im2col(g, isa::layout_for("vta"));
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  passes::pack_layouts(g, isa::layout_for("vta"));
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 21);
  const auto before = reference_int8(g, {x})[0];
  EXPECT_EQ(g.count(OpKind::Pack), 3);
  EXPECT_EQ(passes::fold_packs(g), 3);  // two packs and the Quantize
  verify(g, "fold_packs");
  EXPECT_EQ(g.count(OpKind::Pack), 1);  // the fc's input (a Flatten's output)
  EXPECT_EQ(g.count(OpKind::Quantize), 0);
  EXPECT_EQ(reference_int8(g, {x})[0], before);
  const std::string t = to_text(g);
  EXPECT_NE(t.find("%conv1.im2col = weft.Im2Col(%data) {consts=[1,64], device=\"cpu\", kernel=7, "
                   "layout_c=16, layout_n=1, out_h=16, out_scale=0.015625, out_w=16, pads=[3,3,3,3], "
                   "stride=2, y0=0} : i8[1,149,16,16] NCHW1n16c q=2^-6"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("%maxpool = MaxPool(%conv1.unpacked) {device=\"cpu\", kernel_shape=[3,3], layout_c=16, "
                   "layout_n=1, pads=[1,1,1,1], strides=[2,2]} : i8[1,16,8,8] NCHW1n16c"),
            std::string::npos)
      << t;
  // A value also read by another node keeps its Pack.
  Graph h("two_readers");
  TensorType it(DType::I8, {1, 4, 8, 8});
  it.quant.scale = {0.5f};
  const ValueId in = h.add_input("x", it);
  const ValueId m = h.add_op(OpKind::MaxPool, "pool", {in}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  const ValueId pk = h.add_op(OpKind::Pack, "pool.packed", {m}, {{"n", int64_t{1}}, {"c", int64_t{16}}});
  h.set_outputs({pk, m});
  EXPECT_EQ(passes::fold_packs(h), 0);
  EXPECT_EQ(h.count(OpKind::Pack), 1);
}

// band_pool: the max pool after the stem's row bands runs in the same bands, each band's
// window the band's rows plus a halo row of the band before; bit-exact in the int8 reference.
TEST(BandPool, PoolInTheStemsBandsIsExact) {
  Graph g = quantized_resnet(128, 16, 1);
  passes::fuse_epilogues(g);
  passes::stem_im2col(g, isa::layout_for("vta"), 160 << 10);  // rows of 9,408 B: 4 bands of 16
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  passes::pack_layouts(g, isa::layout_for("vta"));
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 23);
  const auto before = reference_int8(g, {x})[0];
  EXPECT_EQ(passes::band_pool(g), 1);
  verify(g, "band_pool");
  EXPECT_EQ(g.count(OpKind::MaxPool), 4);
  EXPECT_EQ(reference_int8(g, {x})[0], before);
  const std::string t = to_text(g);
  EXPECT_NE(t.find("%conv1.rows0.halo = weft.Unpack(%conv1.rows0) {device=\"cpu\", out_h=1, y0=15} : "
                   "i8[1,16,1,64] NCHW"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("%maxpool.rows8 = MaxPool(%maxpool.in.rows8) {device=\"cpu\", kernel_shape=[3,3], "
                   "layout_c=16, layout_n=1, pads=[0,1,0,1], strides=[2,2]} : i8[1,16,8,32] NCHW1n16c"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("%maxpool = Concat(%maxpool.rows0, %maxpool.rows8, %maxpool.rows16, %maxpool.rows24) "
                   "{axis=2, device=\"cpu\"} : i8[1,16,32,32] NCHW1n16c"),
            std::string::npos)
      << t;
}

TEST(BandPool, LeavesAJoinedOutputSomethingElseReads) {
  Graph g = quantized_resnet(128, 16, 1);
  passes::fuse_epilogues(g);
  passes::stem_im2col(g, isa::layout_for("vta"), 160 << 10);
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  passes::pack_layouts(g, isa::layout_for("vta"));
  for (const Node& n : g.nodes())
    if (!n.dead && n.kind == OpKind::Concat) g.add_output(n.outputs[0]);
  EXPECT_EQ(passes::band_pool(g), 0);
  EXPECT_EQ(g.count(OpKind::MaxPool), 1);
}

// plan_memory: a Concat of Unpacks read by nothing else is planned in place (the parts are
// views of the whole, which lives from the first Unpack); a part with another reader keeps its
// own buffer and is copied in.
TEST(PlanMemory, ConcatOfUnpacksInPlace) {
  for (bool extra_reader : {false, true}) {
    Graph g("bands");
    TensorType pt(DType::I8, {1, 16, 4, 8});
    pt.layout = Layout::blocked(1, 16);
    std::vector<ValueId> parts;
    for (int b = 0; b < 3; ++b) {
      const ValueId in = g.add_input("band" + std::to_string(b), pt);
      parts.push_back(g.add_op(OpKind::Unpack, "band" + std::to_string(b) + ".unpacked", {in}));
    }
    const ValueId cat = g.add_op(OpKind::Concat, "cat", parts, {{"axis", int64_t{2}}});
    const ValueId r = g.add_op(OpKind::Relu, "relu", {cat});
    g.set_outputs({r});
    if (extra_reader) g.add_output(parts[1]);
    passes::MemoryPlan p = passes::plan_memory(g);
    passes::check_memory_plan(p);
    int views = 0;
    for (size_t b = 0; b < parts.size(); ++b) {
      const passes::Placement& pl = p.values.at(parts[b]);
      EXPECT_EQ(pl.view_of == kNone, extra_reader && b == 1) << b;
      if (pl.view_of == kNone) continue;
      ++views;
      EXPECT_EQ(pl.view_of, cat);
      EXPECT_EQ(pl.view_axis, 2);
      EXPECT_EQ(pl.view_at, 4 * static_cast<int64_t>(b));
      EXPECT_EQ(pl.offset, p.values.at(cat).offset);
      EXPECT_GE(pl.first, p.values.at(cat).first);
    }
    EXPECT_EQ(views, extra_reader ? 2 : 3);
    EXPECT_EQ(g.node(g.value(cat).producer).get_int("in_place", 0), 1);
    // The whole (1536 B) and the relu's output, and the part with another reader.
    EXPECT_EQ(p.host_arena, extra_reader ? 2 * 1536 + 512 : 2 * 1536);
    if (!extra_reader) {
      // A view outside its parent's lifetime is caught.
      p.values.at(parts[0]).first = p.values.at(cat).first - 1;
      EXPECT_THROW(passes::check_memory_plan(p), InternalError);
    }
  }
}

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
      EXPECT_TRUE(n.has("shifts"));
      EXPECT_TRUE(g.value(n.inputs[1]).type.quant.per_channel());
      ++per_channel;
    }
  EXPECT_GT(per_channel, 0);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 1);
  EXPECT_EQ(reference_int8(g, {x})[0].size(), 10u);
}

// Per-channel shifts on the accelerator: the common part and the per-lane remainders (0..15),
// and a spread the register SHR cannot tell apart is a clear error.
TEST(ChannelShifts, SplitIntoACommonImmediateAndPerLaneAmounts) {
  const isa::Layout& l = isa::layout_for("vta");
  EXPECT_EQ(ops::max_register_shift(l), 15);
  ops::ChannelShifts a = ops::split_channel_shifts(l, {9, 11, 10}, "n");
  EXPECT_EQ(a.common, 0);
  EXPECT_EQ(a.lane, (std::vector<int8_t>{9, 11, 10}));
  EXPECT_FALSE(a.uniform());
  ops::ChannelShifts b = ops::split_channel_shifts(l, {20, 31, 16}, "n");
  EXPECT_EQ(b.common, 16);
  EXPECT_EQ(b.lane, (std::vector<int8_t>{4, 15, 0}));
  EXPECT_TRUE(ops::split_channel_shifts(l, {12, 12}, "n").uniform());
  auto what = [&](std::vector<int64_t> s) {
    try {
      ops::split_channel_shifts(l, s, "node 'c'");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(what({3, 19}), "node 'c': the per-channel shifts range from 3 to 19, more than the 15 "
                           "one register SHR of the accelerator's ALU can tell apart");
  EXPECT_EQ(what({3, 32}), "node 'c': channel 1 shifts by 32 (0 to 31 allowed)");
}

// The partition keeps per-channel layers on the accelerator, and puts one whose shifts lie too
// far apart on the CPU with the reason.
TEST(Partition, PerChannelShiftsStayOnTheAcceleratorWhenTheySplit) {
  Graph g = quantized_resnet(32, 16, 1, /*per_channel=*/true);
  passes::fuse_epilogues(g);
  NodeId spread = kNone;
  for (NodeId id : g.topo_order())
    if (g.node(id).kind == OpKind::QConv && spread == kNone) {
      spread = id;
      std::vector<int64_t> s = g.node(id).get_ints("shifts", {});
      s[0] = s[1] + 16;  // one channel 16 further than another
      g.node(id).attrs["shifts"] = s;
    }
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  int accel = 0;
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    if (n.kind != OpKind::QConv && n.kind != OpKind::QDense) continue;
    if (id == spread) {
      EXPECT_EQ(n.get_string("device", ""), "cpu");
      EXPECT_NE(n.get_string("cpu_reason", "").find("more than the 15"), std::string::npos);
    } else {
      EXPECT_EQ(n.get_string("device", ""), "accel") << n.name;
      EXPECT_TRUE(n.has("shifts")) << n.name;
      ++accel;
    }
  }
  EXPECT_GT(accel, 2);
}

}  // namespace
}  // namespace weft::compiler::graph
