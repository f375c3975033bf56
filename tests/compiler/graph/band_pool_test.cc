// Pass band_pool: the max pool after the stem's row bands runs in the same bands (halo rows, edge
// pads), bit-exact in the int8 reference; a joined output something else reads is left alone.
#include "compiler/graph/passes/band_pool.h"

#include <gtest/gtest.h>

#include "compiler/graph/dump.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/pack_layouts.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/passes/stem_im2col.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/graph/verify.h"
#include "tests/compiler/graph/quantized_resnet.h"

namespace weft::compiler::graph {
namespace {

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
  EXPECT_NE(
      t.find("%conv1.rows0.halo = weft.Unpack(%conv1.rows0) {device=\"cpu\", out_h=1, y0=15} : "
             "i8[1,16,1,64] NCHW"),
      std::string::npos)
      << t;
  EXPECT_NE(
      t.find("%maxpool.rows8 = MaxPool(%maxpool.in.rows8) {device=\"cpu\", kernel_shape=[3,3], "
             "layout_c=16, layout_n=1, pads=[0,1,0,1], strides=[2,2]} : i8[1,16,8,32] NCHW1n16c"),
      std::string::npos)
      << t;
  EXPECT_NE(
      t.find("%maxpool = Concat(%maxpool.rows0, %maxpool.rows8, %maxpool.rows16, %maxpool.rows24) "
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

}  // namespace
}  // namespace weft::compiler::graph
