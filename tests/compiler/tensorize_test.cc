// Tensorize: the dense operator in packed layouts, staged through inp/wgt/acc tiles, with its
// innermost block loops replaced by the configuration's GEMM intrinsic; the lowered IR is
// checked as text and run through the interpreter (with the intrinsic's semantics) against a
// plain reference on gemm8x8, vta and tiny block shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/te/lower.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {
namespace {

using ir::DType;
using ::testing::HasSubstr;

// Packed dense: A[mo, ko, mi, ki] . W[no, ko, ni, ki] -> C[mo, no, mi, ni] (int32).
struct PackedDense {
  PackedDense(const GemmIntrinsic& g, int64_t mo, int64_t no, int64_t ko, int64_t tm, int64_t tn,
              int64_t tk)
      : g(g), mo(mo), no(no), ko(ko) {
    a = placeholder({mo, ko, g.batch, g.block_in}, DType::kInt8, "A");
    w = placeholder({no, ko, g.block_out, g.block_in}, DType::kInt8, "W");
    const IterVar rko = reduce_axis(ko, "ko"), rki = reduce_axis(g.block_in, "ki");
    c = compute_reduce(
        {mo, no, g.batch, g.block_out}, DType::kInt32,
        [&](const std::vector<ir::Expr>& i) {
          const ir::Expr k0 = ir::ref(rko->var), k1 = ir::ref(rki->var);
          return sum(ir::mul(ir::cast(DType::kInt32, a({i[0], k0, i[2], k1})),
                             ir::cast(DType::kInt32, w({i[1], k0, i[3], k1}))),
                     {rko, rki});
        },
        "C");
    s = std::make_unique<Schedule>(std::vector<Tensor>{c});
    c_acc = s->cache_write(c, ir::Scope::kAcc);
    a_inp = s->cache_read(a, ir::Scope::kInp, {c_acc});
    w_wgt = s->cache_read(w, ir::Scope::kWgt, {c_acc});
    Stage& out = (*s)[c];
    auto [moo, moi] = out.split(out.axes()[0], tm);
    auto [noo, noi] = out.split(out.axes()[1], tn);
    out.reorder({moo, noo, moi, noi});
    Stage& acc = (*s)[c_acc];
    acc.compute_at(out, noo);
    auto [koo, koi] = acc.split(acc.reduce_axes()[0], tk);
    const auto& ax = acc.axes();
    acc.reorder({koo, koi, ax[0], ax[1], ax[2], ax[3], acc.reduce_axes()[1]});
    acc.tensorize(ax[2], g);
    (*s)[a_inp].compute_at(acc, koo);
    (*s)[w_wgt].compute_at(acc, koo);
  }
  GemmIntrinsic g;
  int64_t mo, no, ko;
  Tensor a, w, c, c_acc, a_inp, w_wgt;
  std::unique_ptr<Schedule> s;
};

// The intrinsics' semantics, on whichever acc/inp/wgt buffers are allocated.
std::map<std::string, ir::Intrinsic> gemm_semantics(const GemmIntrinsic& g) {
  auto find = [](ir::BufferData& d, ir::Scope sc) -> std::vector<int64_t>& {
    for (auto& [b, v] : d) {
      if (b->scope == sc) return v;
    }
    throw std::runtime_error("no buffer in scope");
  };
  std::map<std::string, ir::Intrinsic> m;
  m[g.name] = [g, find](const std::vector<int64_t>& a, ir::BufferData& d) -> int64_t {
    auto& acc = find(d, ir::Scope::kAcc);
    auto& inp = find(d, ir::Scope::kInp);
    auto& wgt = find(d, ir::Scope::kWgt);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t o = 0; o < g.block_out; ++o) {
        int64_t s = 0;
        for (int64_t c = 0; c < g.block_in; ++c) {
          s += inp[(a[1] * g.batch + b) * g.block_in + c] *
               wgt[(a[2] * g.block_out + o) * g.block_in + c];
        }
        int64_t& x = acc[(a[0] * g.batch + b) * g.block_out + o];
        x = ir::wrap(x + s, DType::kInt32);
      }
    }
    return 0;
  };
  m[g.reset_name] = [g, find](const std::vector<int64_t>& a, ir::BufferData& d) -> int64_t {
    auto& acc = find(d, ir::Scope::kAcc);
    for (int64_t e = 0; e < g.batch * g.block_out; ++e) acc[a[0] * g.batch * g.block_out + e] = 0;
    return 0;
  };
  return m;
}

TEST(Tensorize, GemmBlocksBecomeIntrinsicCalls) {
  GemmIntrinsic g{8, 8, 8};
  PackedDense d(g, 4, 4, 4, 2, 2, 2);
  const std::string text = ir::to_string(lower(*d.s));
  EXPECT_THAT(text, HasSubstr("weft.gemm_reset(((ax0*2) + ax1))"));
  EXPECT_THAT(text,
              HasSubstr("weft.gemm(((ax0*2) + ax1), ((ax0*2) + ko.inner), ((ax1*2) + ko.inner))"));
  EXPECT_THAT(text, HasSubstr("allocate A.inp[int8 * 2 * 2 * 8 * 8] in acc.inp"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("ki")));  // the block loops are gone
}

TEST(Tensorize, TensorizedDenseIsCorrectOnEveryBlockShape) {
  for (const GemmIntrinsic& g :
       {GemmIntrinsic{8, 8, 8}, GemmIntrinsic{1, 16, 16}, GemmIntrinsic{1, 4, 4}}) {
    SCOPED_TRACE(std::to_string(g.batch) + "x" + std::to_string(g.block_in));
    const int64_t mo = 3, no = 4, ko = 5;
    PackedDense d(g, mo, no, ko, 2, 2, 2);
    std::mt19937 rng(7);
    ir::BufferData data;
    auto& a = data[d.a->buffer.get()];
    auto& w = data[d.w->buffer.get()];
    a.resize(static_cast<size_t>(d.a->buffer->elements()));
    w.resize(static_cast<size_t>(d.w->buffer->elements()));
    for (auto& x : a) x = static_cast<int8_t>(rng());
    for (auto& x : w) x = static_cast<int8_t>(rng());
    data[d.c->buffer.get()].assign(static_cast<size_t>(d.c->buffer->elements()), 99);
    ir::interpret(lower(*d.s), data, gemm_semantics(g));
    const auto& c = data[d.c->buffer.get()];
    const int64_t m = mo * g.batch, n = no * g.block_out, k = ko * g.block_in;
    auto A = [&](int64_t i, int64_t kk) {
      return a[((i / g.batch * ko + kk / g.block_in) * g.batch + i % g.batch) * g.block_in +
               kk % g.block_in];
    };
    auto W = [&](int64_t j, int64_t kk) {
      return w[((j / g.block_out * ko + kk / g.block_in) * g.block_out + j % g.block_out) *
                   g.block_in +
               kk % g.block_in];
    };
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t ref = 0;
        for (int64_t kk = 0; kk < k; ++kk) ref += A(i, kk) * W(j, kk);
        const int64_t got =
            c[((i / g.batch * no + j / g.block_out) * g.batch + i % g.batch) * g.block_out +
              j % g.block_out];
        ASSERT_EQ(got, ref) << i << ", " << j;
      }
    }
  }
}

TEST(Tensorize, MismatchesAreUserErrorsNamingTheLoop) {
  Tensor a = placeholder({4, 4}, DType::kInt8, "A");
  Tensor b = placeholder({4, 4}, DType::kInt8, "B");
  const IterVar k = reduce_axis(4, "k");
  Tensor c = compute_reduce(
      {4, 4}, DType::kInt32,
      [&](const std::vector<ir::Expr>& i) {
        return sum(ir::mul(ir::cast(DType::kInt32, a({i[0], ir::ref(k->var)})),
                           ir::cast(DType::kInt32, b({i[1], ir::ref(k->var)}))),
                   {k});
      },
      "C");
  Schedule s({c});
  const GemmIntrinsic g{1, 16, 16};
  EXPECT_THAT([&] { s[c].tensorize(s[c].axes()[0], g); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("the batch loop 'i' has extent 4, the intrinsic 1")));
  EXPECT_THAT([&] { s[c].tensorize(s[c].axes()[1], g); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("needs exactly three loops inside")));
  const GemmIntrinsic g4{4, 4, 4};
  EXPECT_THAT([&] { s[c].tensorize(s[c].axes()[0], g4); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("must write an acc-scope buffer")));
}

}  // namespace
}  // namespace weft::compiler::te
