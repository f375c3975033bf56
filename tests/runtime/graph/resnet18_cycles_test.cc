// ResNet-18 at its real size pinned at its accelerator cycle count on the cycle model: `vta`,
// batch 1, as `weft run resnet18 --config vta` runs it with a cold knob cache (schedules from
// the shipped tuning records, the others the fastest of 6 exact tilings measured on the cycle
// model; every program rewrite on). The schedules, the rewrites and their legality checks, the
// device memory map and the cycle model all feed this one number (docs/graph.md, Performance),
// so a change in any of them shows here.
#include <gtest/gtest.h>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "runtime/graph/executor.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;

TEST(ResNet18Cycles, VtaBatch1) {
  const cg::Graph g = cg::models::resnet18({});
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const cg::CompiledGraph c = cg::compile_graph(g, l, pf, {});
  ExecutorOptions o;
  o.tune_candidates = 6;  // `weft run resnet18`'s --tune; no knob cache file
  GraphExecutor exe(c, l, pf, o);
  auto dev = open_graph_device("cycle", exe, l, pf);
  const RunResult r = exe.run(*dev, {cg::models::synthetic_input(g.value(g.inputs()[0]).type, 1)});
  EXPECT_EQ(r.report.accel_cycles, 7493672u);
  EXPECT_EQ(r.report.accel_macs, r.report.macs);
  int records = 0, measured = 0;
  for (const StepReport& s : r.report.steps) {
    records += s.schedule_source == "tuning records";
    measured += s.schedule_source.rfind("measured", 0) == 0;
  }
  // The 19 convs after the stem from the shipped records; the stem's 4 row bands (one shape)
  // and the fc measured.
  EXPECT_EQ(records, 19);
  EXPECT_EQ(measured, 5);
}

}  // namespace
}  // namespace weft::rt::graph
