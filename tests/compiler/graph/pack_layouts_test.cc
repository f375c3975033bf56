// Pass pack_layouts: packs only at the accelerator regions' edges, weights packed once.
#include "compiler/graph/passes/pack_layouts.h"

#include <gtest/gtest.h>

#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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

}  // namespace
}  // namespace weft::compiler::graph
