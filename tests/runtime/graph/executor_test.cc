// The network executor: small ResNets through the whole pipeline, run on the functional and
// cycle engines (and the rtl engine when built), bit-exact with each other and with the
// independent int8 reference interpreter; cycle counts equal between cycle and rtl.
#include <gtest/gtest.h>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/executor.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;

cg::models::ResNetOptions tiny_net(int64_t batch, int64_t width, int64_t stages) {
  cg::models::ResNetOptions o;
  o.batch = batch;
  o.image = 32;
  o.width = width;
  o.classes = 10;
  o.stages = stages;
  return o;
}

bool has_engine(const std::string& e) {
  for (const auto& n : driver::device_names())
    if (n == e) return true;
  return false;
}

struct Ran {
  std::vector<float> out;
  RunReport report;
};

void check_network(const char* config, const cg::models::ResNetOptions& o,
                   std::vector<std::string> engines, bool per_channel = false) {
  cg::Graph g = cg::models::resnet18(o);
  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& pf = isa::find_platform("sim");
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;  // every conv and dense on the accelerator
  co.quantize.per_channel = per_channel;
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, co);
  if (per_channel) {
    // Every conv and the fc keep their per-channel shifts, on the accelerator.
    int accel = 0;
    for (cg::NodeId id : c.graph.topo_order()) {
      const cg::Node& n = c.graph.node(id);
      if (n.kind == cg::OpKind::QConv || n.kind == cg::OpKind::QDense) ADD_FAILURE() << n.name;
      if (n.kind == cg::OpKind::AccelConv || n.kind == cg::OpKind::AccelDense) {
        EXPECT_TRUE(n.facts.shifts.has_value()) << n.name;
        ++accel;
      }
    }
    EXPECT_GT(accel, 0);
  }
  GraphExecutor exe(c, l, pf);
  // At least one kernel whose channels shift differently, with a shift tile (a kernel whose
  // channels all shift alike is the per-tensor one).
  if (per_channel) {
    EXPECT_NE(exe.listing().find("per-channel shifts: SHR by"), std::string::npos);
  }
  auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 11);
  const auto want = cg::reference_int8(c.graph, {x})[0];
  std::vector<Ran> runs;
  for (const std::string& e : engines) {
    auto dev = open_graph_device(e, exe, l, pf);
    RunResult r = exe.run(*dev, {x});
    EXPECT_EQ(r.outputs[0], want) << config << " " << e;
    // A second run on the same device (weights already there) gives the same.
    EXPECT_EQ(exe.run(*dev, {x}).outputs[0], want) << config << " " << e << " (again)";
    runs.push_back({r.outputs[0], r.report});
    EXPECT_EQ(r.report.accel_macs, r.report.macs) << config;
    // The ISA floor is a lower bound on every program: no accelerator step beats it.
    if (e != "functional") {
      for (const StepReport& s : r.report.steps) {
        if (s.engine != "accel") continue;
        EXPECT_GT(s.isa_floor_cycles, 0) << s.node;
        EXPECT_LE(s.isa_floor_cycles, s.isa_floor_all_taps_cycles) << s.node;
        EXPECT_GE(static_cast<int64_t>(s.cycles), s.isa_floor_cycles) << config << " " << s.node;
      }
    }
  }
  for (size_t i = 0; i < engines.size(); ++i)
    for (size_t j = 0; j < engines.size(); ++j)
      if (engines[i] != "functional" && engines[j] != "functional") {
        EXPECT_EQ(runs[i].report.accel_cycles, runs[j].report.accel_cycles);
      }
}

TEST(GraphExecutor, SmallResNetBitExactOnVta) { check_network("vta", tiny_net(1, 16, 2), {"functional", "cycle"}); }

// One executor on a device opened afresh for each run, the last one closed first: the new
// device is often at the old one's address, and must still get the weights and programs (an
// executor that told devices apart by address ran on empty memory: "no FINISH instruction").
TEST(GraphExecutor, EachNewDeviceGetsTheWeightsAndProgramsEvenAtAnOldAddress) {
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  cg::Graph g = cg::models::resnet18(tiny_net(1, 16, 1));
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, co);
  GraphExecutor exe(c, l, pf);
  auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 5);
  const auto want = cg::reference_int8(c.graph, {x})[0];
  for (int run = 0; run < 4; ++run) {
    auto dev = open_graph_device("functional", exe, l, pf);
    EXPECT_EQ(exe.run(*dev, {x}).outputs[0], want) << "run " << run;
  }
}

TEST(GraphExecutor, SmallResNetBitExactOnGemm8x8Batch8) {
  check_network("gemm8x8", tiny_net(8, 8, 2), {"functional", "cycle"});
}

// A 128x128 image: conv1's gathered input (147 x 64 x 64) exceeds stem_im2col's 512 KiB band
// budget, so the stem runs as 2 row bands of 1x1 kernels with the bias folded into constant
// lanes (no bias input), and the max pool in the same 2 bands (band_pool: the second band's
// window joins a halo row of the first; both write their rows of the packed pool output):
// bit-exact on functional and cycle.
TEST(GraphExecutor, BandedIm2ColStemBitExactOnVta) {
  cg::models::ResNetOptions o = tiny_net(1, 16, 1);
  o.image = 128;
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;
  const cg::CompiledGraph c = cg::compile_graph(cg::models::resnet18(o), isa::layout_for("vta"),
                                                isa::find_platform("sim"), co);
  EXPECT_EQ(c.graph.count(cg::OpKind::Im2Col), 2);
  EXPECT_EQ(c.graph.count(cg::OpKind::MaxPool), 2);
  EXPECT_EQ(c.graph.count(cg::OpKind::Concat), 2);  // the second window, the joined pool output
  check_network("vta", o, {"functional", "cycle"});
}

// Batch 8 on `vta` (a batch-1 core): the fc's 8 rows are 8 batch blocks, tiled together
// (tile_n) so that its weight tile is loaded once for all of them; bit-exact on functional and
// cycle, and on rtl against cycle where the rtl engine is built (for tiny, batch 4).
TEST(GraphExecutor, DenseRowsTiledTogetherBitExact) {
  check_network("vta", tiny_net(8, 16, 1), {"functional", "cycle"});
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const cg::CompiledGraph c = cg::compile_graph(cg::models::resnet18(tiny_net(8, 16, 1)), l, pf, co);
  GraphExecutor exe(c, l, pf);
  EXPECT_NE(exe.listing().find("tile_n=8"), std::string::npos) << exe.listing();
  if (has_engine("rtl")) check_network("tiny", tiny_net(4, 4, 1), {"cycle", "rtl"});
}

TEST(GraphExecutor, SmallResNetBitExactOnTiny) { check_network("tiny", tiny_net(1, 4, 1), {"functional", "cycle"}); }

TEST(GraphExecutor, RtlMatchesCycleAndReference) {
  if (!has_engine("rtl")) GTEST_SKIP() << "the rtl engine is not built (no Verilator)";
  check_network("tiny", tiny_net(1, 4, 1), {"cycle", "rtl"});
}

// Per-channel weights (--per-channel): one shift per output channel, applied on the
// accelerator by a register SHR from a shift tile; bit-exact with the reference on every
// configuration and engine, and every conv and dense MAC on the accelerator.
TEST(GraphExecutor, PerChannelSmallResNetBitExactOnVta) {
  check_network("vta", tiny_net(1, 16, 2), {"functional", "cycle"}, true);
}
TEST(GraphExecutor, PerChannelSmallResNetBitExactOnGemm8x8Batch8) {
  check_network("gemm8x8", tiny_net(8, 8, 2), {"functional", "cycle"}, true);
}
TEST(GraphExecutor, PerChannelSmallResNetBitExactOnTiny) {
  check_network("tiny", tiny_net(1, 4, 1), {"functional", "cycle"}, true);
}
TEST(GraphExecutor, PerChannelRtlMatchesCycleAndReference) {
  if (!has_engine("rtl")) GTEST_SKIP() << "the rtl engine is not built (no Verilator)";
  check_network("tiny", tiny_net(1, 4, 1), {"cycle", "rtl"}, true);
}

TEST(GraphExecutor, WrongInputSizeIsAUserError) {
  cg::Graph g = cg::models::resnet18(tiny_net(1, 8, 1));
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, {});
  GraphExecutor exe(c, l, pf);
  auto dev = open_graph_device("functional", exe, l, pf);
  EXPECT_THROW(exe.run(*dev, {std::vector<float>(7)}), UserError);
}

}  // namespace
}  // namespace weft::rt::graph
