// Pass stem_space_to_depth: the stride-2 stem as space-to-depth + a conv, bit-exact.
#include "compiler/graph/passes/stem_space_to_depth.h"

#include <gtest/gtest.h>

#include "compiler/graph/dump.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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

}  // namespace
}  // namespace weft::compiler::graph
