// The lowering of accelerator nodes to kernels (compiler/graph/lower): a node's shape and
// epilogue (per-channel shifts split into an immediate and a shift tile), the packed bias and
// shift tiles, exact tilings, the knob chooser's order (records, then the analytic choice or
// the fastest measured, remembered per layer), and a whole kernel: its operands, its constants
// in the device map's order, and the program rewrites each node's legality checks allow.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/graph/lower/accel_kernel.h"
#include "compiler/graph/lower/choose_knobs.h"
#include "compiler/graph/lower/conv_node.h"
#include "compiler/graph/lower/kernel_constants.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {
namespace {

// An accelerator conv node on `l`: x [n, ic, h, w] packed, weight [oc, ic, k, k], bias (when
// `bias` is not empty) and a residual input (when `residual`); a shift of 6 (or `shifts`, one
// per output channel) and a ReLU.
struct ConvGraph {
  Graph g;
  NodeId node = kNone;
};

ConvGraph accel_conv(const isa::Layout& l, int64_t n, int64_t ic, int64_t hw, int64_t oc, int64_t k,
                     int64_t pad, const std::vector<int32_t>& bias, bool residual,
                     const std::vector<int64_t>& shifts = {}) {
  ConvGraph c;
  Graph& g = c.g;
  TensorType xt(DType::I8, {n, ic, hw, hw});
  xt.layout = Layout::blocked(l.config.batch(), l.config.block_in());
  const ValueId x = g.add_input("x", xt);
  TensorType wt(DType::I8, {oc, ic, k, k});
  wt.layout = Layout::blocked(l.config.block_out(), l.config.block_in());
  const ValueId w = g.add_constant(
      "w", wt, ConstData::from_i8(std::vector<int8_t>(static_cast<size_t>(wt.stored_bytes()), 1)));
  std::vector<ValueId> ins = {x, w};
  if (!bias.empty() || residual)
    ins.push_back(bias.empty() ? kNone
                               : g.add_constant("b", TensorType(DType::I32, {oc}),
                                                ConstData::from_i32(bias)));
  const int64_t out = (hw + 2 * pad - k) + 1;
  TensorType yt(DType::I8, {n, oc, out, out});
  yt.layout = Layout::blocked(l.config.batch(), l.config.block_out());
  if (residual) ins.push_back(g.add_input("r", yt));
  const Attrs a = {{"strides", std::vector<int64_t>{1, 1}},
                   {"pads", std::vector<int64_t>{pad, pad, pad, pad}}};
  NodeFacts f;
  if (shifts.empty())
    f.shift = 6;
  else
    f.shifts = shifts;
  f.relu = true;
  c.node = g.add_node(OpKind::AccelConv, "conv", ins, a, {yt}, {"y"}, f);
  g.set_outputs({g.node(c.node).outputs[0]});
  return c;
}

TEST(ConvNode, ShapeAndEpilogueFromTheNode) {
  const isa::Layout& l = isa::layout_for("vta");
  const ConvGraph c = accel_conv(l, 1, 32, 9, 48, 3, 1, std::vector<int32_t>(48, 5), true);
  const ConvNode n = conv_node(c.g, c.g.node(c.node), l);
  EXPECT_EQ(n.shape.describe(), (ops::Conv2dShape{1, 9, 9, 32, 48, 3, 1, 1}).describe());
  EXPECT_EQ(n.epilogue.shift, 6);
  EXPECT_TRUE(n.epilogue.relu && n.epilogue.bias && n.epilogue.bias_first && n.epilogue.residual);
  EXPECT_FALSE(n.epilogue.channel_shifts);
  EXPECT_FALSE(n.channel_shifts.has_value());
  EXPECT_NE(n.bias, kNone);
  EXPECT_NE(n.residual, kNone);
  // No bias input (stem_im2col folded it), no residual.
  const ConvGraph d = accel_conv(l, 1, 16, 4, 16, 1, 0, {}, false);
  const ConvNode m = conv_node(d.g, d.g.node(d.node), l);
  EXPECT_FALSE(m.epilogue.bias || m.epilogue.bias_first || m.epilogue.residual);
}

TEST(ConvNode, PerChannelShiftsSplitOrCollapse) {
  const isa::Layout& l = isa::layout_for("vta");
  // Channels that all shift by 9: the per-tensor kernel with an immediate shift of 9.
  ConvGraph c = accel_conv(l, 1, 16, 4, 4, 1, 0, {1, 2, 3, 4}, false, {9, 9, 9, 9});
  ConvNode n = conv_node(c.g, c.g.node(c.node), l);
  EXPECT_FALSE(n.epilogue.channel_shifts);
  EXPECT_EQ(n.epilogue.shift, 9);
  // Different shifts: the common part as the immediate, the rest per lane.
  c = accel_conv(l, 1, 16, 4, 4, 1, 0, {1, 2, 3, 4}, false, {7, 9, 12, 8});
  n = conv_node(c.g, c.g.node(c.node), l);
  ASSERT_TRUE(n.channel_shifts.has_value());
  EXPECT_TRUE(n.epilogue.channel_shifts);
  EXPECT_EQ(n.epilogue.shift, n.channel_shifts->common);
  for (size_t o = 0; o < 4; ++o)
    EXPECT_EQ(n.channel_shifts->common + n.channel_shifts->lane[o],
              (std::vector<int>{7, 9, 12, 8})[o]);
  // Spread over more than one register shift can apply: a user error naming the node.
  c = accel_conv(l, 1, 16, 4, 2, 1, 0, {1, 2}, false, {0, 20});
  try {
    (void)conv_node(c.g, c.g.node(c.node), l);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'conv'"), std::string::npos) << e.what();
  }
}

TEST(KernelConstants, BiasAndShiftTilesRepeatEachChannelOverTheBatchRows) {
  const isa::Layout& l = isa::layout_for("gemm8x8");  // BATCH 8, BLOCK_OUT 8
  std::vector<int32_t> bias(10);
  for (int i = 0; i < 10; ++i) bias[i] = 100 * i - 7;
  const std::vector<uint8_t> b = pack_bias_tile(l, bias.data(), 10, 2);
  ASSERT_EQ(b.size(), 2u * 8 * 8 * 4);
  std::vector<int32_t> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), b.size());
  for (int64_t o = 0; o < 16; ++o)
    for (int64_t r = 0; r < 8; ++r)
      EXPECT_EQ(v[((o / 8) * 8 + r) * 8 + o % 8], o < 10 ? bias[o] : 0) << o << " " << r;
  EXPECT_TRUE(pack_bias_tile(l, nullptr, 10, 2).empty());
  const std::vector<uint8_t> s = pack_shift_tile(l, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 2);
  ASSERT_EQ(s.size(), 2u * 8 * 8);
  for (int64_t o = 0; o < 16; ++o)
    for (int64_t r = 0; r < 8; ++r) EXPECT_EQ(s[((o / 8) * 8 + r) * 8 + o % 8], o < 9 ? o + 1 : 0);
}

TEST(ExactTilings, CoverTheLayerAndFitTheFcsOddBlockCount) {
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const ops::Conv2dShape fc{1, 1, 1, 512, 1000, 1, 1, 0};  // 63 output channel blocks
  const auto k = exact_tilings(l, pf, fc, false, false, 4);
  ASSERT_FALSE(k.empty());
  EXPECT_LE(k.size(), 4u);
  for (const auto& e : k) EXPECT_TRUE(knobs_cover_exactly(l, fc, e)) << e.describe();
  EXPECT_EQ(63 % k[0].tile_oc, 0);
  EXPECT_GT(k[0].tile_oc, 1);  // a divisor of 63, not one block at a time
  const ops::Conv2dShape c{1, 14, 14, 256, 256, 3, 1, 1};
  for (const auto& e : exact_tilings(l, pf, c, true, false, 3)) {
    EXPECT_TRUE(knobs_cover_exactly(l, c, e)) << e.describe();
    EXPECT_NO_THROW(ops::check_conv2d_knobs(l, c, e, true));
  }
  ops::Conv2dKnobs bad;
  bad.tile_h = 3;  // 14 rows are not whole tiles of 3
  EXPECT_FALSE(knobs_cover_exactly(l, c, bad));
}

// A knob source that records what it was asked.
struct FakeSource : KnobSource {
  std::optional<ops::Conv2dKnobs> record;
  int recorded_calls = 0, fastest_calls = 0;
  std::vector<ops::Conv2dKnobs> seen;
  std::string key;
  std::optional<ops::Conv2dKnobs> recorded(const ops::Conv2dShape&,
                                           const ops::Conv2dEpilogue&) override {
    ++recorded_calls;
    return record;
  }
  ops::Conv2dKnobs fastest(const std::string& k, const ops::Conv2dShape&,
                           const std::vector<ops::Conv2dKnobs>& c) override {
    ++fastest_calls;
    key = k;
    seen = c;
    return c.back();
  }
  std::string fastest_note() const override { return ", fake"; }
};

TEST(KnobChooser, RecordsFirstThenTheFastestRememberedPerLayer) {
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const ops::Conv2dShape s{1, 14, 14, 64, 64, 3, 1, 1};
  ops::Conv2dEpilogue e;
  e.residual = true;
  FakeSource src;
  KnobChooser three(l, pf, 3, &src);
  const KnobChoice a = three.choose(s, e, "a");
  EXPECT_EQ(src.fastest_calls, 1);
  EXPECT_EQ(a.source, "measured (best of 3 exact tilings, fake)");
  EXPECT_EQ(src.key, "vta/sim/" + s.describe() + "/r/exact2/t3");
  ASSERT_GE(src.seen.size(), 2u);
  EXPECT_EQ(a.knobs.describe(), src.seen.back().describe());
  EXPECT_EQ(src.seen[0].describe(), exact_tilings(l, pf, s, true, false, 3)[0].describe());
  // The same layer again: remembered, not measured again; the records are still asked first.
  const KnobChoice b = three.choose(s, e, "b");
  EXPECT_EQ(src.fastest_calls, 1);
  EXPECT_EQ(src.recorded_calls, 2);
  EXPECT_EQ(b.knobs.describe(), a.knobs.describe());
  // With one candidate nothing is measured: the analytic chooser's first exact tiling.
  KnobChooser one(l, pf, 1, &src);
  const KnobChoice c = one.choose(s, e, "c");
  EXPECT_EQ(c.source, "analytic chooser");
  EXPECT_EQ(c.knobs.describe(), src.seen[0].describe());
  EXPECT_EQ(src.fastest_calls, 1);
  // A record wins.
  src.record = ops::Conv2dKnobs{7, 7, 1, 1, 2, 'o'};
  const KnobChoice r = three.choose(s, e, "r");
  EXPECT_EQ(r.source, "tuning records");
  EXPECT_EQ(r.knobs.describe(), src.record->describe());
  // Without a source: the analytic choice.
  KnobChooser none(l, pf, 3, nullptr);
  EXPECT_EQ(none.choose(s, e, "n").knobs.describe(), src.seen[0].describe());
}

TEST(AccelLowering, OperandsConstantsAndTheRewritesEachNodeAllows) {
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  KnobChooser knobs(l, pf, 1, nullptr);
  AccelLowering lower(l, pf, {}, knobs);
  const ConvGraph c = accel_conv(l, 1, 32, 8, 32, 3, 1, std::vector<int32_t>(32, 1000), true);
  std::vector<std::string> steps;
  const AccelKernel k = lower.lower(
      c.g, c.node, {}, [&](const std::string& s, const accel::Program&) { steps.push_back(s); });
  EXPECT_EQ(steps, (std::vector<std::string>{"emit_accel", "residual_init", "bias_gemm",
                                             "skip_pad_taps", "plan_tokens"}));
  EXPECT_EQ(k.rewrites, (std::vector<std::string>{"residual_init", "bias_gemm", "skip_pad_taps"}));
  EXPECT_EQ(k.schedule_source, "analytic chooser");
  EXPECT_EQ(k.macs, 32 * 32 * 8 * 8 * 9);
  EXPECT_GT(k.floor.cycles, 0);
  // Operands: input, weight, output and residual by the operator's tensors.
  ASSERT_EQ(k.operands.size(), 4u);
  EXPECT_EQ(k.operands[0].buffer, k.op.a->buffer);
  EXPECT_EQ(k.operands[0].value, c.g.node(c.node).inputs[0]);
  EXPECT_EQ(k.operands[2].value, c.g.node(c.node).outputs[0]);
  EXPECT_EQ(k.operands[3].buffer, k.op.residual->buffer);
  EXPECT_EQ(k.operands[3].elem_bytes, l.acc8_elem_bytes);
  // Constants: the bias tile, then bias_gemm's weight blocks and constant input block.
  ASSERT_EQ(k.constants.size(), 3u);
  EXPECT_EQ(k.constants[0].buffer, k.op.bias->buffer);
  EXPECT_EQ(k.constants[0].bytes, pack_bias_tile(l, std::vector<int32_t>(32, 1000).data(), 32, 2));
  EXPECT_EQ(k.constants[1].buffer->name, "conv.bias_w");
  EXPECT_EQ(k.constants[1].bytes.size(), 2u * 16 * 16);
  EXPECT_EQ(k.constants[2].buffer->name, "conv.ones");
  EXPECT_EQ(k.constants[2].alignment, 256u);

  // A bias too large for the lanes (bias_gemm's check) and for the residual's headroom
  // (residual_init's check): neither rewrite; the bias tile stays the only constant.
  const ConvGraph big =
      accel_conv(l, 1, 32, 8, 32, 3, 1, std::vector<int32_t>(32, 2147000000), true);
  const AccelKernel b = lower.lower(big.g, big.node);
  EXPECT_EQ(b.rewrites, std::vector<std::string>{"skip_pad_taps"});
  EXPECT_EQ(b.constants.size(), 1u);
  // Every rewrite off.
  AccelLowering plain(l, pf, {false, false, false}, knobs);
  EXPECT_TRUE(plain.lower(c.g, c.node).rewrites.empty());
}

TEST(AccelLowering, PerChannelShiftsAddTheShiftTile) {
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  KnobChooser knobs(l, pf, 1, nullptr);
  AccelLowering lower(l, pf, {false, false, false}, knobs);
  const ConvGraph c = accel_conv(l, 1, 16, 4, 4, 1, 0, {1, 2, 3, 4}, false, {7, 9, 12, 8});
  const AccelKernel k = lower.lower(c.g, c.node);
  ASSERT_EQ(k.constants.size(), 2u);
  EXPECT_EQ(k.constants[1].buffer, k.op.shifts->buffer);
  EXPECT_EQ(k.constants[1].elem_bytes, l.acc8_elem_bytes);
  EXPECT_EQ(k.constants[1].bytes,
            pack_shift_tile(l, ops::split_channel_shifts(l, {7, 9, 12, 8}, "t").lane, 1));
}

}  // namespace
}  // namespace weft::compiler::graph
