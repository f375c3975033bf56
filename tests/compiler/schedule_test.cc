// Tensor expressions and schedules: the lowered loop IR of a GEMM before and after split,
// tile, reorder and fuse (compared as text), the same results from every schedule through the
// reference interpreter (including factors that do not divide), and the schedule errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "compiler/ir/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/te/lower.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {
namespace {

using ir::DType;
using ::testing::HasSubstr;

// C[i, j] = sum_k int32(A[i, k]) * int32(B[j, k]): the dense operator's definition.
struct Gemm {
  Gemm(int64_t m, int64_t n, int64_t k) {
    a = placeholder({m, k}, DType::kInt8, "A");
    b = placeholder({n, k}, DType::kInt8, "B");
    const IterVar kk = reduce_axis(k, "k");
    c = compute_reduce(
        {m, n}, DType::kInt32,
        [&](const std::vector<ir::Expr>& i) {
          return sum(ir::mul(ir::cast(DType::kInt32, a({i[0], ir::ref(kk->var)})),
                             ir::cast(DType::kInt32, b({i[1], ir::ref(kk->var)}))),
                     {kk});
        },
        "C");
  }
  Tensor a, b, c;
};

TEST(Schedule, NaiveGemmLowering) {
  Gemm g(4, 6, 8);
  Schedule s({g.c});
  EXPECT_EQ(ir::to_string(lower(s)),
            "for (i, 0, 4) {\n"
            "  for (j, 0, 6) {\n"
            "    C[i, j] = 0\n"
            "    for (k, 0, 8) {\n"
            "      C[i, j] = (C[i, j] + (int32(A[i, k])*int32(B[j, k])))\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// Bound loops (GPU block and thread indices) carry their axis into the IR and print it.
TEST(Schedule, BoundLoopsCarryTheirAxis) {
  Gemm g(4, 64, 8);
  Schedule s({g.c});
  Stage& st = s[g.c];
  auto [jo, ji] = st.split(st.axes()[1], 32);
  st.bind(st.axes()[0], ThreadAxis::kBlockY);
  st.bind(jo, ThreadAxis::kBlockX);
  st.bind(ji, ThreadAxis::kThreadX);
  EXPECT_EQ(ir::to_string(lower(s)),
            "// attr bind.blockIdx.y = 4\n"
            "for (i, 0, 4) {\n"
            "  // attr bind.blockIdx.x = 2\n"
            "  for (j.outer, 0, 2) {\n"
            "    // attr bind.threadIdx.x = 32\n"
            "    for (j.inner, 0, 32) {\n"
            "      C[i, ((j.outer*32) + j.inner)] = 0\n"
            "      for (k, 0, 8) {\n"
            "        C[i, ((j.outer*32) + j.inner)] = (C[i, ((j.outer*32) + j.inner)] + "
            "(int32(A[i, k])*int32(B[((j.outer*32) + j.inner), k])))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_THAT(
      [&] { st.bind(st.reduce_axes()[0], ThreadAxis::kThreadY); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("bind of reduction loop 'k' to threadIdx.y")));
}

// A max reduction starts at the lowest value of the type and combines with max; the
// interpreter gives the window maxima.
TEST(Schedule, MaxReductionLowersToMaxFromTheLowestValue) {
  Tensor x = placeholder({3, 8}, DType::kInt8, "X");
  const IterVar r = reduce_axis(4, "r");
  Tensor y = compute_reduce(
      {3, 2}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        return maximum(x({i[0], ir::add(ir::mul(i[1], ir::imm(4)), ir::ref(r->var))}), {r});
      },
      "Y");
  EXPECT_EQ(y->reduce_op, ReduceOp::kMax);
  Schedule s({y});
  EXPECT_EQ(ir::to_string(lower(s)),
            "for (i, 0, 3) {\n"
            "  for (j, 0, 2) {\n"
            "    Y[i, j] = -128\n"
            "    for (r, 0, 4) {\n"
            "      Y[i, j] = max(Y[i, j], X[i, ((j*4) + r)])\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_THROW(maximum(ir::imm(0), {IterVar(std::make_shared<IterVarObj>(ir::make_var("s"), 2, false))}),
               UserError);
}

TEST(Schedule, TileAndReorderPutTheInitOutsideTheReduction) {
  Gemm g(16, 16, 16);
  Schedule s({g.c});
  Stage& st = s[g.c];
  const auto t = st.tile(st.tensor()->axes[0], st.tensor()->axes[1], 8, 8);
  auto [ko, ki] = st.split(st.tensor()->reduce_axes[0], 4);
  st.reorder({t[0], t[1], ko, t[2], t[3], ki});
  EXPECT_EQ(ir::to_string(lower(s)),
            "for (i.outer, 0, 2) {\n"
            "  for (j.outer, 0, 2) {\n"
            "    for (i.inner, 0, 8) {\n"
            "      for (j.inner, 0, 8) {\n"
            "        C[((i.outer*8) + i.inner), ((j.outer*8) + j.inner)] = 0\n"
            "      }\n"
            "    }\n"
            "    for (k.outer, 0, 4) {\n"
            "      for (i.inner, 0, 8) {\n"
            "        for (j.inner, 0, 8) {\n"
            "          for (k.inner, 0, 4) {\n"
            "            C[((i.outer*8) + i.inner), ((j.outer*8) + j.inner)] = "
            "(C[((i.outer*8) + i.inner), ((j.outer*8) + j.inner)] + "
            "(int32(A[((i.outer*8) + i.inner), ((k.outer*4) + k.inner)])*"
            "int32(B[((j.outer*8) + j.inner), ((k.outer*4) + k.inner)])))\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(Schedule, NonDividingSplitIsGuardedAndFuseDerivesIndices) {
  Gemm g(5, 4, 3);
  Schedule s({g.c});
  Stage& st = s[g.c];
  auto [io, ii] = st.split(st.tensor()->axes[0], 2);
  const IterVar f = st.fuse(ii, st.tensor()->axes[1]);
  st.set_kind(io, ir::ForKind::kVirtualThread);
  const std::string text = ir::to_string(lower(s));
  EXPECT_THAT(text, HasSubstr("vthread (i.outer, 0, 3) {"));
  EXPECT_THAT(text, HasSubstr("for (i.inner.j.fused, 0, 8) {"));
  EXPECT_THAT(text, HasSubstr("if ((((i.outer*2) + (i.inner.j.fused/4)) < 5)) {"));
  EXPECT_THAT(text, HasSubstr("C[((i.outer*2) + (i.inner.j.fused/4)), (i.inner.j.fused%4)] = 0"));
}

// Runs a lowered GEMM on random data and compares with a plain triple loop.
void expect_gemm_correct(Gemm& g, Schedule& s, int64_t m, int64_t n, int64_t k) {
  std::mt19937 rng(42);
  ir::BufferData data;
  auto& a = data[g.a->buffer.get()];
  auto& b = data[g.b->buffer.get()];
  for (int64_t x = 0; x < m * k; ++x) a.push_back(static_cast<int8_t>(rng()));
  for (int64_t x = 0; x < n * k; ++x) b.push_back(static_cast<int8_t>(rng()));
  data[g.c->buffer.get()].assign(static_cast<size_t>(m * n), 12345);  // garbage: init must clear
  ir::interpret(lower(s), data);
  const auto& c = data[g.c->buffer.get()];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t ref = 0;
      for (int64_t kk = 0; kk < k; ++kk) ref += a[i * k + kk] * b[j * k + kk];
      ASSERT_EQ(c[i * n + j], ref) << "C[" << i << ", " << j << "]";
    }
  }
}

TEST(Schedule, EverySchedulePreservesTheResult) {
  const int64_t m = 13, n = 10, k = 7;
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    Gemm g(m, n, k);
    Schedule s({g.c});
    Stage& st = s[g.c];
    const IterVar i = st.tensor()->axes[0], j = st.tensor()->axes[1];
    const IterVar kk = st.tensor()->reduce_axes[0];
    if (variant == 1) st.tile(i, j, 4, 3);
    if (variant == 2) {
      auto [ko, ki] = st.split(kk, 3);
      auto [jo, ji] = st.split(j, 4);
      st.reorder({ko, i, jo, ki, ji});
    }
    if (variant == 3) {
      const IterVar f = st.fuse(i, j);
      auto [fo, fi] = st.split(f, 16);
      st.set_kind(fo, ir::ForKind::kVirtualThread);
      st.pragma(fi, "alu");
    }
    expect_gemm_correct(g, s, m, n, k);
  }
}

// A packed copy of B in column panels of `nr` (bp[jo, k, ji] = B[jo*nr + ji, k]), read by the
// GEMM through jo = j/nr, ji = j%nr; C in (jo, io) tiles whose sums are a local stage computed
// at the row-tile loop. With the panel computed at the column-panel loop, outside the stage
// that reads it, its region comes from that stage's iterations: one panel [1, K, nr] per jo.
TEST(Schedule, PanelComputedAtAnOuterLoopOfItsReadersConsumer) {
  const int64_t m = 6, n = 8, k = 5, nr = 4, mr = 3;
  Gemm g(m, n, k);
  Tensor bp = compute(
      {n / nr, k, nr}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        return g.b({ir::add(ir::mul(i[0], ir::imm(nr)), i[2]), i[1]});
      },
      "B.panels");
  const IterVar kk = reduce_axis(k, "k");
  Tensor c = compute_reduce(
      {m, n}, DType::kInt32,
      [&](const std::vector<ir::Expr>& i) {
        ir::Expr b = bp({ir::floordiv(i[1], ir::imm(nr)), ir::ref(kk->var),
                         ir::floormod(i[1], ir::imm(nr))});
        return sum(ir::mul(ir::cast(DType::kInt32, g.a({i[0], ir::ref(kk->var)})),
                           ir::cast(DType::kInt32, b)),
                   {kk});
      },
      "C");
  Schedule s({c});
  const Tensor local = s.cache_write(c, ir::Scope::kLocal);
  Stage& sc = s[c];
  auto [io, ii] = sc.split(sc.axes()[0], mr);
  auto [jo, ji] = sc.split(sc.axes()[1], nr);
  sc.reorder({jo, io, ii, ji});
  s[local].compute_at(sc, io);
  s.set_scope(bp, ir::Scope::kLocal);
  s[bp].compute_at(sc, jo);
  const ir::Stmt body = lower(s);
  const std::string text = ir::to_string(body);
  // The panel buffer is allocated and filled inside the column-panel loop, before the rows.
  const size_t panel_loop = text.find("for (j.outer, 0, 2) {");
  const size_t alloc = text.find("allocate B.panels.local[int8 * 1 * 5 * 4] in local");
  const size_t rows = text.find("for (i.outer, 0, 2) {");
  ASSERT_NE(panel_loop, std::string::npos) << text;
  ASSERT_NE(alloc, std::string::npos) << text;
  EXPECT_LT(panel_loop, alloc);
  EXPECT_LT(alloc, rows);
  // And the GEMM still computes the reference.
  std::mt19937 rng(7);
  ir::BufferData data;
  auto& a = data[g.a->buffer.get()];
  auto& b = data[g.b->buffer.get()];
  for (int64_t x = 0; x < m * k; ++x) a.push_back(static_cast<int8_t>(rng()));
  for (int64_t x = 0; x < n * k; ++x) b.push_back(static_cast<int8_t>(rng()));
  data[c->buffer.get()].assign(static_cast<size_t>(m * n), 12345);
  ir::interpret(body, data);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t ref = 0;
      for (int64_t q = 0; q < k; ++q) ref += a[i * k + q] * b[j * k + q];
      ASSERT_EQ(data[c->buffer.get()][i * n + j], ref) << "C[" << i << ", " << j << "]";
    }
  }
}

TEST(Schedule, ErrorsNameTheLoop) {
  Gemm g(8, 8, 8);
  Schedule s({g.c});
  Stage& st = s[g.c];
  const IterVar i = st.tensor()->axes[0], j = st.tensor()->axes[1];
  const IterVar k = st.tensor()->reduce_axes[0];
  EXPECT_THAT([&] { st.split(i, 0); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("split of loop 'i' by factor 0")));
  auto [io, ii] = st.split(i, 4);
  EXPECT_THAT([&] { st.split(i, 2); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("split of loop 'i', which is not a loop of this stage now")));
  EXPECT_THAT([&] { st.fuse(io, j); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("which are not adjacent")));
  EXPECT_THAT(
      [&] {
        st.reorder({j, j});
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("reorder names loop 'j' twice")));
  EXPECT_THAT(
      [&] { st.set_kind(k, ir::ForKind::kVirtualThread); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("virtual thread on reduction loop 'k'")));
  st.reorder({io, j, ii, k});
  EXPECT_THAT([&] { st.fuse(ii, k); }, ::testing::ThrowsMessage<UserError>(
                                           HasSubstr("fuse of spatial and reduction loops")));
  EXPECT_THAT([&] { s[g.a]; },
              ::testing::ThrowsMessage<UserError>(HasSubstr("it is a placeholder")));
  EXPECT_THAT([&] { g.a({ir::imm(0)}); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("tensor 'A' has 2 dimensions")));
}

// The VTA-style GEMM schedule: accumulate in the acc scope per output tile, stage input and
// weight tiles into their scopes per reduction step.
struct CachedGemm {
  CachedGemm(int64_t m, int64_t n, int64_t k, int64_t tile, int64_t ktile) : g(m, n, k), s({g.c}) {
    c_acc = s.cache_write(g.c, ir::Scope::kAcc);
    a_inp = s.cache_read(g.a, ir::Scope::kInp, {c_acc});
    b_wgt = s.cache_read(g.b, ir::Scope::kWgt, {c_acc});
    const auto t = s[g.c].tile(s[g.c].axes()[0], s[g.c].axes()[1], tile, tile);
    s[c_acc].compute_at(s[g.c], t[1]);
    auto [ko, ki] = s[c_acc].split(s[c_acc].reduce_axes()[0], ktile);
    s[c_acc].reorder({ko, s[c_acc].axes()[0], s[c_acc].axes()[1], ki});
    s[a_inp].compute_at(s[c_acc], ko);
    s[b_wgt].compute_at(s[c_acc], ko);
    s[a_inp].pragma(s[a_inp].axes()[0], "dma_copy");
  }
  Gemm g;
  Schedule s;
  Tensor c_acc, a_inp, b_wgt;
};

TEST(Schedule, CacheReadWriteAndComputeAtStageTilesIntoScopes) {
  CachedGemm cg(8, 8, 8, 4, 4);
  EXPECT_EQ(
      ir::to_string(lower(cg.s)),
      "for (i.outer, 0, 2) {\n"
      "  for (j.outer, 0, 2) {\n"
      "    allocate C.acc[int32 * 4 * 4] in acc.acc\n"
      "    for (ax0, 0, 4) {\n"
      "      for (ax1, 0, 4) {\n"
      "        C.acc[ax0, ax1] = 0\n"
      "      }\n"
      "    }\n"
      "    for (k.outer, 0, 2) {\n"
      "      allocate A.inp[int8 * 4 * 4] in acc.inp\n"
      "      allocate B.wgt[int8 * 4 * 4] in acc.wgt\n"
      "      // attr pragma_dma_copy = 1\n"
      "      for (ax0, 0, 4) {\n"
      "        for (ax1, 0, 4) {\n"
      "          A.inp[ax0, ax1] = A[((i.outer*4) + ax0), ((k.outer*4) + ax1)]\n"
      "        }\n"
      "      }\n"
      "      for (ax0, 0, 4) {\n"
      "        for (ax1, 0, 4) {\n"
      "          B.wgt[ax0, ax1] = B[((j.outer*4) + ax0), ((k.outer*4) + ax1)]\n"
      "        }\n"
      "      }\n"
      "      for (ax0, 0, 4) {\n"
      "        for (ax1, 0, 4) {\n"
      "          for (k.inner, 0, 4) {\n"
      "            C.acc[ax0, ax1] = (C.acc[ax0, ax1] + "
      "(int32(A.inp[ax0, k.inner])*int32(B.wgt[ax1, k.inner])))\n"
      "          }\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    for (i.inner, 0, 4) {\n"
      "      for (j.inner, 0, 4) {\n"
      "        C[((i.outer*4) + i.inner), ((j.outer*4) + j.inner)] = C.acc[i.inner, j.inner]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST(Schedule, CachedScheduleIsCorrectOnShapesThatDoNotDivide) {
  for (const auto& [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{10, 12, 9}, {3, 5, 17}, {16, 16, 16}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    CachedGemm cg(m, n, k, 4, 4);
    expect_gemm_correct(cg.g, cg.s, m, n, k);
  }
}

TEST(Schedule, ComputeAtAndCacheErrors) {
  Gemm g(8, 8, 8);
  Schedule s({g.c});
  const Tensor c_acc = s.cache_write(g.c, ir::Scope::kAcc);
  const Tensor other = placeholder({4}, DType::kInt8, "X");
  EXPECT_THAT([&] { s.cache_read(other, ir::Scope::kInp, {c_acc}); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("stage 'C.acc' does not read it")));
  auto [io, ii] = s[c_acc].split(s[c_acc].axes()[0], 2);
  EXPECT_THAT(
      [&] { s[c_acc].compute_at(s[g.c], s[g.c].axes()[1]); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("spatial loops whole, but 'ax0' was split")));
  Gemm h(8, 8, 8);
  Schedule t({h.c});
  EXPECT_THAT([&] { t[h.c].compute_at(t[h.c], t[h.c].axes()[0]); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("inside itself")));
  const IterVar f = t[h.c].fuse(t[h.c].axes()[0], t[h.c].axes()[1]);
  EXPECT_THAT([&] { t.cache_write(h.c, ir::Scope::kAcc); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("after it was scheduled")));
  (void)f;
  (void)ii;
  (void)io;
}

TEST(Schedule, ElementwiseEpilogueStagesLowerInOrder) {
  Gemm g(2, 2, 2);
  const Tensor out = compute(
      {2, 2}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        return ir::min(ir::max(ir::shr(g.c(i), ir::imm(3)), ir::imm(0)), ir::imm(127));
      },
      "OUT");
  Schedule s({out});
  ASSERT_EQ(s.order().size(), 2u);
  EXPECT_EQ(s.order()[0].get(), g.c.get());
  const std::string text = ir::to_string(lower(s));
  EXPECT_THAT(text, HasSubstr("OUT[i, j] = int8(min(max((C[i, j] >> 3), 0), 127))"));
  EXPECT_LT(text.find("C[i, j] = 0"), text.find("OUT[i, j]"));
}

}  // namespace
}  // namespace weft::compiler::te
