// Pass plan_memory: no two live values overlap, memory is reused, a Concat of Unpacks is unpacked
// into in place (views at the right rows; a part with another reader copied in), and a broken plan
// is caught.
#include "compiler/graph/passes/plan_memory.h"

#include <gtest/gtest.h>

#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/pack_layouts.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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
    EXPECT_EQ(g.node(g.value(cat).producer).facts.in_place, true);
    // The whole (1536 B) and the relu's output, and the part with another reader.
    EXPECT_EQ(p.host_arena, extra_reader ? 2 * 1536 + 512 : 2 * 1536);
    if (!extra_reader) {
      // A view outside its parent's lifetime is caught.
      p.values.at(parts[0]).first = p.values.at(cat).first - 1;
      EXPECT_THROW(passes::check_memory_plan(p), InternalError);
    }
  }
}

}  // namespace
}  // namespace weft::compiler::graph
