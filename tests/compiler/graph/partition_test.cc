// Pass partition, and the per-channel shift split it checks (compiler/ops/channel_shifts.h): per-
// channel layers stay on the accelerator when their shifts split into a common immediate and per-
// lane amounts; one whose shifts lie too far apart goes to the CPU with the reason.
#include "compiler/graph/passes/partition.h"

#include <gtest/gtest.h>

#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/ops/channel_shifts.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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
  EXPECT_EQ(what({3, 19}),
            "node 'c': the per-channel shifts range from 3 to 19, more than the 15 "
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
      std::vector<int64_t> s = *g.node(id).facts.shifts;
      s[0] = s[1] + 16;  // one channel 16 further than another
      g.node(id).facts.shifts = s;
    }
  passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 0.001);
  int accel = 0;
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    if (n.kind != OpKind::QConv && n.kind != OpKind::QDense) continue;
    if (id == spread) {
      EXPECT_EQ(n.facts.device, Device::kCpu);
      EXPECT_NE(n.facts.cpu_reason.value_or("").find("more than the 15"), std::string::npos);
    } else {
      EXPECT_EQ(n.facts.device, Device::kAccel) << n.name;
      EXPECT_TRUE(n.facts.shifts.has_value()) << n.name;
      ++accel;
    }
  }
  EXPECT_GT(accel, 2);
}

// With a CPU fast enough that no layer pays for its accelerator launch, every layer stays on
// the CPU and the report's reason gives both estimates.
TEST(Partition, ALayerCheaperOnTheCpuSaysSoWithBothEstimates) {
  Graph g = quantized_resnet(32, 16, 1, /*per_channel=*/false);
  passes::fuse_epilogues(g);
  EXPECT_EQ(passes::partition(g, isa::layout_for("vta"), isa::find_platform("sim"), 1e9), 0);
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    if (n.kind != OpKind::QConv && n.kind != OpKind::QDense) continue;
    EXPECT_EQ(n.facts.device, Device::kCpu) << n.name;
    EXPECT_EQ(n.facts.cpu_reason.value_or("").rfind("estimated faster on the CPU: ", 0), 0u)
        << n.facts.cpu_reason.value_or("");
    EXPECT_NE(n.facts.cpu_reason.value_or("").find(" us on the accelerator"), std::string::npos);
  }
}

}  // namespace
}  // namespace weft::compiler::graph
