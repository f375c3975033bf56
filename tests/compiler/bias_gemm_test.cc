// Pass bias_gemm (compiler/passes/bias_gemm.h): bias_pieces splits a bias into int8 lanes
// exactly (and refuses one that needs more lanes than a block has: the pass's legality check);
// the pass turns a register ADD of a loaded bias tile into a GEMM against the constant block,
// loads the constant block and the bias weights first, and drops the bias load only when
// nothing else reads its rows.
#include "compiler/passes/bias_gemm.h"

#include <gtest/gtest.h>

#include "compiler/accel/printer.h"
#include "tests/compiler/epilogue_program.h"

namespace weft::compiler::passes {
namespace {

using accel::Op;

TEST(BiasPieces, SumsAreExactAndTooLargeIsRefused) {
  const isa::Layout& l = isa::layout_for("vta");  // 16 lanes: up to 126 + 127 * 15 * 127
  const std::vector<int32_t> bias = {0, 1, -1, 126, 127, -128, 40000, -40000, 241935, -241935,
                                     12345, -7};
  std::vector<int8_t> ones, w;
  ASSERT_TRUE(bias_pieces(l, bias.data(), static_cast<int64_t>(bias.size()), &ones, &w));
  ASSERT_EQ(ones.size(), 16u);
  ASSERT_EQ(w.size(), 16u * 16u);  // one block of 16 channels
  for (size_t o = 0; o < bias.size(); ++o) {
    int64_t sum = 0;
    for (size_t c = 0; c < 16; ++c) sum += int64_t{ones[c]} * w[o * 16 + c];
    EXPECT_EQ(sum, bias[o]) << o;
  }
  const int32_t big[] = {300000};
  EXPECT_FALSE(bias_pieces(l, big, 1, &ones, &w));
}

TEST(BiasGemm, TheAddBecomesAGemmAndTheLoadGoes) {
  const isa::Layout& l = isa::layout_for("vta");
  const auto bias = ir::make_buffer("B", ir::DType::kInt32, {2, 1, 16});
  const auto res = ir::make_buffer("R", ir::DType::kInt8, {2, 1, 16});
  const auto ones = ir::make_buffer("ones", ir::DType::kInt8, {1, 16});
  const auto w = ir::make_buffer("bias_w", ir::DType::kInt8, {2, 16, 16});
  int n = 0;
  const accel::Program p = bias_gemm(epilogue(bias, res, false), l, bias, ones, w, 2, &n);
  EXPECT_EQ(n, 1);
  // The reset, the GEMM, two loads (the constant block into INP row 1, after row 0 the GEMM
  // reads; the weights into WGT rows 1..2), the bias GEMM: no bias load.
  ASSERT_EQ(p.ops.size(), 8u);
  EXPECT_EQ(p.ops[2].mem, isa::MemType::kInp);
  EXPECT_EQ(p.ops[2].sram_base, 1);
  EXPECT_EQ(p.ops[3].mem, isa::MemType::kWgt);
  EXPECT_EQ(p.ops[3].sram_base, 1);
  EXPECT_EQ(p.ops[3].x_size, 2);
  const Op& g = p.ops[4];
  EXPECT_EQ(g.kind, Op::Kind::kGemm);
  EXPECT_FALSE(g.reset);
  EXPECT_EQ(g.uops[0].dst, 0);
  EXPECT_EQ(g.uops[0].src, 1);
  EXPECT_EQ(g.uops[0].wgt, 1);
  EXPECT_EQ(g.wgt_factor_out, 1);
  EXPECT_EQ(g.src_factor_out, 0);
  // A later reader of the bias rows keeps the load.
  const accel::Program q = bias_gemm(epilogue(bias, res, true), l, bias, ones, w, 2, &n);
  EXPECT_EQ(n, 1);
  int bias_loads = 0;
  for (const Op& op : q.ops) bias_loads += op.kind == Op::Kind::kLoad && op.tensor == bias;
  EXPECT_EQ(bias_loads, 1);
}

}  // namespace
}  // namespace weft::compiler::passes
