// Pass stem_im2col: the few-channel stem as im2col + 1x1 convs, bit-exact whole, in row bands and
// with its bias folded into constant lanes; left alone under a too-small budget.
#include "compiler/graph/passes/stem_im2col.h"

#include <gtest/gtest.h>

#include "compiler/graph/dump.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/stem_space_to_depth.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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
  EXPECT_NE(t.find("%conv1 = weft.QConv(%conv1.im2col, $conv1.w.im2col) {"), std::string::npos)
      << t;
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

}  // namespace
}  // namespace weft::compiler::graph
