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
#include "tests/compiler/packed_dense.h"

namespace weft::compiler::te {
namespace {

using ir::DType;
using ::testing::HasSubstr;

TEST(Tensorize, GemmBlocksBecomeIntrinsicCalls) {
  GemmIntrinsic g{8, 8, 8};
  PackedDense d(g, 4, 4, 4, 2, 2, 2);
  const std::string text = ir::to_string(lower(*d.s));
  EXPECT_THAT(text, HasSubstr("weft.gemm_reset(C.acc, ((ax0*2) + ax1))"));
  EXPECT_THAT(text, HasSubstr("weft.gemm(C.acc, A.inp, W.wgt, ((ax0*2) + ax1), ((ax0*2) + "
                              "ko.inner), ((ax1*2) + ko.inner))"));
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
