// Program rewrites of the conv2d epilogue: bias_pieces splits a bias into int8 lanes exactly
// (and refuses one that needs more lanes than a block has); bias_gemm turns a register ADD of
// a loaded bias tile into a GEMM against the constant block, loads the constant block and the
// bias weights first, and drops the bias load only when nothing else reads its rows;
// residual_init moves a residual load to the reset and drops the ADD; skip_pad_taps drops the
// GEMM iterations that read DMA padding.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "compiler/passes/bias_gemm.h"
#include "compiler/passes/residual_init.h"
#include "compiler/passes/skip_pad_taps.h"

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

// A hand-made epilogue: reset rows 0..1, a GEMM, a bias load into rows 8..9, ADD rows 0..1
// from 8..9, SHR 4, a residual load into rows 16..17, ADD rows 0..1 from 16..17, MIN.
accel::Program epilogue(const ir::Buffer& bias, const ir::Buffer& res, bool bias_read_again) {
  accel::Program p;
  auto kernel = [](Op::Kind kind, int64_t dst, int64_t src) {
    Op op;
    op.kind = kind;
    op.uops = {{dst, src, 0}};
    op.iter_out = 2;
    op.dst_factor_out = 1;
    op.src_factor_out = kind == Op::Kind::kGemm ? 0 : 1;
    return op;
  };
  auto load = [](isa::MemType mem, const ir::Buffer& t, int64_t sram) {
    Op op;
    op.kind = Op::Kind::kLoad;
    op.mem = mem;
    op.tensor = t;
    op.sram_base = sram;
    op.y_size = 1;
    op.x_size = 2;
    op.x_stride = 2;
    op.module = accel::module_of(op);
    return op;
  };
  Op reset = kernel(Op::Kind::kGemm, 0, 0);
  reset.reset = true;
  p.ops.push_back(reset);
  p.ops.push_back(kernel(Op::Kind::kGemm, 0, 0));
  p.ops.push_back(load(isa::MemType::kAcc, bias, 8));
  Op add = kernel(Op::Kind::kAlu, 0, 8);
  p.ops.push_back(add);
  Op shr = kernel(Op::Kind::kAlu, 0, 0);
  shr.alu_op = isa::AluOp::kShr;
  shr.use_imm = true;
  shr.imm = 4;
  p.ops.push_back(shr);
  p.ops.push_back(load(isa::MemType::kAcc8Bit, res, 16));
  p.ops.push_back(kernel(Op::Kind::kAlu, 0, 16));
  if (bias_read_again) {
    Op min = kernel(Op::Kind::kAlu, 0, 8);
    min.alu_op = isa::AluOp::kMin;
    p.ops.push_back(min);
  }
  return p;
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

TEST(ResidualInit, TheLoadMovesToTheResetAndTheAddGoes) {
  const auto bias = ir::make_buffer("B", ir::DType::kInt32, {2, 1, 16});
  const auto res = ir::make_buffer("R", ir::DType::kInt8, {2, 1, 16});
  int n = 0;
  const accel::Program p = residual_init(epilogue(bias, res, false), res, &n);
  EXPECT_EQ(n, 1);
  // load R into rows 0..1, SHR -4 (a left shift), GEMM, bias load, bias ADD, SHR 4.
  ASSERT_EQ(p.ops.size(), 6u);
  EXPECT_EQ(p.ops[0].kind, Op::Kind::kLoad);
  EXPECT_EQ(p.ops[0].tensor, res);
  EXPECT_EQ(p.ops[0].sram_base, 0);
  EXPECT_EQ(p.ops[1].alu_op, isa::AluOp::kShr);
  EXPECT_EQ(p.ops[1].imm, -4);
  EXPECT_EQ(p.ops[5].imm, 4);
  // A MIN between the shift and the ADD would make it another function: left alone.
  accel::Program q = epilogue(bias, res, false);
  Op min = q.ops[4];
  min.alu_op = isa::AluOp::kMin;
  min.imm = 100;
  q.ops.insert(q.ops.begin() + 5, min);
  EXPECT_EQ(residual_init(q, res, &n).ops.size(), q.ops.size());
  EXPECT_EQ(n, 0);
}

TEST(SkipPadTaps, IterationsOnPaddingGo) {
  const isa::Layout& l = isa::layout_for("vta");
  const auto a = ir::make_buffer("A", ir::DType::kInt8, {4, 16});
  // A 1-wide input column with one padding block above and below: INP rows 0 (pad), 1, 2, 3 (pad).
  Op load;
  load.kind = Op::Kind::kLoad;
  load.mem = isa::MemType::kInp;
  load.tensor = a;
  load.y_size = 2;
  load.x_size = 1;
  load.x_stride = 1;
  load.y_pad0 = load.y_pad1 = 1;
  load.module = accel::module_of(load);
  // Two output rows x three taps (a 3x1 conv): dst r, src r + tap, wgt tap; outer loop taps.
  Op g;
  g.kind = Op::Kind::kGemm;
  g.uops = {{0, 0, 0}, {1, 1, 0}};
  g.iter_out = 3;
  g.dst_factor_out = 0;
  g.src_factor_out = 1;
  g.wgt_factor_out = 1;
  accel::Program p;
  p.ops = {load, g};
  int64_t dropped = 0;
  const accel::Program q = skip_pad_taps(p, l, &dropped);
  // Reads: tap 0 -> rows 0 (pad), 1; tap 1 -> 1, 2; tap 2 -> 2, 3 (pad): two go.
  EXPECT_EQ(dropped, 2);
  int64_t iterations = 0;
  std::vector<std::pair<int64_t, int64_t>> kept;
  for (const Op& op : q.ops) {
    if (op.kind != Op::Kind::kGemm) continue;
    for (int64_t i = 0; i < op.iter_out; ++i)
      for (const isa::Uop& u : op.uops) {
        ++iterations;
        kept.push_back({u.dst + i * op.dst_factor_out, u.src + i * op.src_factor_out});
      }
  }
  EXPECT_EQ(iterations, 4);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {0, 2}, {1, 1}, {1, 2}}));
  // No padding: the program is returned as it was.
  load.y_pad0 = load.y_pad1 = 0;
  load.y_size = 4;
  p.ops = {load, g};
  EXPECT_EQ(skip_pad_taps(p, l, &dropped).ops.size(), 2u);
  EXPECT_EQ(dropped, 0);
}

// A 3x3 convolution tile: 4x4 output pixels as micro-ops, the taps as the two hardware loops,
// over a 6x6 input with one row and column of padding all round. The 44 (pixel, tap) pairs on
// padding go; the pixels fall into 9 classes (4 corners, 4 edges, the interior), each keeping
// one rectangle of taps: 9 GEMMs whose kernels hold each pixel once (16 entries). With a
// micro-op buffer too small for the new kernels, the program is left as it was.
TEST(SkipPadTaps, BorderPixelsKeepOneRectangleOfTapsEach) {
  const isa::Layout& l = isa::layout_for("vta");
  const auto a = ir::make_buffer("A", ir::DType::kInt8, {16, 16});
  Op load;
  load.kind = Op::Kind::kLoad;
  load.mem = isa::MemType::kInp;
  load.tensor = a;
  load.y_size = load.x_size = 4;
  load.x_stride = 4;
  load.y_pad0 = load.y_pad1 = load.x_pad0 = load.x_pad1 = 1;
  load.module = accel::module_of(load);
  Op g;
  g.kind = Op::Kind::kGemm;
  for (int64_t y = 0; y < 4; ++y)
    for (int64_t x = 0; x < 4; ++x) g.uops.push_back({y * 4 + x, y * 6 + x, 0});
  g.iter_out = g.iter_in = 3;  // ky, kx
  g.src_factor_out = 6;
  g.wgt_factor_out = 3;
  g.src_factor_in = 1;
  g.wgt_factor_in = 1;
  accel::Program p;
  p.ops = {load, g};
  // The (dst, src, wgt) triples a program runs, in any order.
  auto runs_of = [](const accel::Program& q) {
    std::vector<std::tuple<int64_t, int64_t, int64_t>> r;
    for (const Op& op : q.ops) {
      if (op.kind != Op::Kind::kGemm) continue;
      for (int64_t i = 0; i < op.iter_out; ++i)
        for (int64_t j = 0; j < op.iter_in; ++j)
          for (const isa::Uop& u : op.uops)
            r.emplace_back(u.dst + i * op.dst_factor_out + j * op.dst_factor_in,
                           u.src + i * op.src_factor_out + j * op.src_factor_in,
                           u.wgt + i * op.wgt_factor_out + j * op.wgt_factor_in);
    }
    std::sort(r.begin(), r.end());
    return r;
  };
  std::vector<std::tuple<int64_t, int64_t, int64_t>> want;
  for (const auto& t : runs_of(p)) {
    const int64_t y = std::get<1>(t) / 6, x = std::get<1>(t) % 6;
    if (y >= 1 && y <= 4 && x >= 1 && x <= 4) want.push_back(t);
  }
  int64_t dropped = 0;
  const accel::Program q = skip_pad_taps(p, l, &dropped);
  EXPECT_EQ(dropped, 44);
  EXPECT_EQ(want.size(), 100u);
  EXPECT_EQ(runs_of(q), want);
  int64_t gemms = 0, entries = 0;
  for (const Op& op : q.ops)
    if (op.kind == Op::Kind::kGemm) ++gemms, entries += static_cast<int64_t>(op.uops.size());
  EXPECT_EQ(gemms, 9);
  EXPECT_EQ(entries, 16);
  isa::Layout small = l;
  small.uop_depth = 15;
  EXPECT_EQ(skip_pad_taps(p, small, &dropped).ops.size(), 2u);
  EXPECT_EQ(dropped, 0);
}

}  // namespace
}  // namespace weft::compiler::passes
