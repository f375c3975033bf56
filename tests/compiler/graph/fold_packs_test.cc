// Pass fold_packs: CPU nodes that only feed a Pack write the packed layout themselves, and an
// input quantized only for packed im2cols is quantized as they gather; bit-exact in the int8
// reference.
#include "compiler/graph/passes/fold_packs.h"

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
  EXPECT_NE(
      t.find("%conv1.im2col = weft.Im2Col(%data) {consts=[1,64], device=\"cpu\", kernel=7, "
             "layout_c=16, layout_n=1, out_h=16, out_scale=0.03125, out_w=16, pads=[3,3,3,3], "
             "stride=2, y0=0} : i8[1,149,16,16] NCHW1n16c q=2^-5"),
      std::string::npos)
      << t;
  EXPECT_NE(
      t.find(
          "%maxpool = MaxPool(%conv1.unpacked) {device=\"cpu\", kernel_shape=[3,3], layout_c=16, "
          "layout_n=1, pads=[1,1,1,1], strides=[2,2]} : i8[1,16,8,8] NCHW1n16c"),
      std::string::npos)
      << t;
  // A value also read by another node keeps its Pack.
  Graph h("two_readers");
  TensorType it(DType::I8, {1, 4, 8, 8});
  it.quant.scale = {0.5f};
  const ValueId in = h.add_input("x", it);
  const ValueId m =
      h.add_op(OpKind::MaxPool, "pool", {in}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  NodeFacts blocks;
  blocks.pack_n = 1;
  blocks.pack_c = 16;
  const ValueId pk = h.add_op(OpKind::Pack, "pool.packed", {m}, {}, blocks);
  h.set_outputs({pk, m});
  EXPECT_EQ(passes::fold_packs(h), 0);
  EXPECT_EQ(h.count(OpKind::Pack), 1);
}

}  // namespace
}  // namespace weft::compiler::graph
