// Pass skip_pad_taps (compiler/passes/skip_pad_taps.h): GEMM iterations that read only DMA
// padding go, the others run exactly once, border pixels keep one rectangle of taps each, and
// nothing changes when the new kernels would not fit the micro-op buffer.
#include "compiler/passes/skip_pad_taps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

namespace weft::compiler::passes {
namespace {

using accel::Op;

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
