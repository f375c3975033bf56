// Schedule::set_scope: an intermediate tensor kept in an on-chip scope. Its readers read the
// scoped buffer, compute_at realizes it as a region-sized tile, the program computes the same
// result (reference interpreter), and outputs or a second set_scope are errors.
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

// C[i, j] = sum_k int32(A[i, k]) * int32(B[j, k]); D[i, j] = int8(C[i, j] >> 3).
struct GemmShift {
  GemmShift() {
    a = placeholder({4, 6}, DType::kInt8, "A");
    b = placeholder({5, 6}, DType::kInt8, "B");
    const IterVar k = reduce_axis(6, "k");
    c = compute_reduce(
        {4, 5}, DType::kInt32,
        [&](const std::vector<ir::Expr>& i) {
          return sum(ir::mul(ir::cast(DType::kInt32, a({i[0], ir::ref(k->var)})),
                             ir::cast(DType::kInt32, b({i[1], ir::ref(k->var)}))),
                     {k});
        },
        "C");
    d = compute(
        {4, 5}, DType::kInt8,
        [&](const std::vector<ir::Expr>& i) {
          return ir::cast(DType::kInt8, ir::shr(c(i), ir::imm(3, DType::kInt32)));
        },
        "D");
  }
  Tensor a, b, c, d;
};

TEST(SetScope, ReadersReadTheScopedBuffer) {
  GemmShift g;
  Schedule s({g.d});
  EXPECT_EQ(ir::to_string(s[g.d].body()), "int8((C[i, j] >> 3))");
  s.set_scope(g.c, ir::Scope::kAcc);
  EXPECT_EQ(s[g.c].buffer()->name, "C.acc");
  EXPECT_EQ(s[g.c].buffer()->scope, ir::Scope::kAcc);
  EXPECT_EQ(ir::to_string(s[g.d].body()), "int8((C.acc[i, j] >> 3))");
  // The tensor itself is unchanged: it still names its DRAM buffer.
  EXPECT_EQ(g.c->buffer->scope, ir::Scope::kGlobal);
}

TEST(SetScope, ComputeAtRealizesARegionSizedTileWithTheSameResult) {
  GemmShift g;
  Schedule s({g.d});
  s.set_scope(g.c, ir::Scope::kAcc);
  s[g.c].compute_at(s[g.d], s[g.d].axes()[0]);
  const ir::Stmt scoped = lower(s);
  // C's own row loop (also named i) keeps the region's extent 1; C.acc is indexed from the
  // region's base, D reads row 0 of the tile.
  EXPECT_EQ(ir::to_string(scoped),
            "for (i, 0, 4) {\n"
            "  allocate C.acc[int32 * 1 * 5] in acc.acc\n"
            "  for (i, 0, 1) {\n"
            "    for (j, 0, 5) {\n"
            "      C.acc[i, j] = 0\n"
            "      for (k, 0, 6) {\n"
            "        C.acc[i, j] = (C.acc[i, j] + (int32(A[(i + i), k])*int32(B[j, k])))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  for (j, 0, 5) {\n"
            "    D[i, j] = int8((C.acc[0, j] >> 3))\n"
            "  }\n"
            "}\n");

  // The same program with C in DRAM computes the same D.
  GemmShift h;
  Schedule plain({h.d});
  std::mt19937 rng(4);
  ir::BufferData data;
  for (const Tensor& t : {g.a, g.b}) {
    auto& v = data[t->buffer.get()];
    for (int64_t n = 0; n < t->buffer->elements(); ++n) v.push_back(static_cast<int8_t>(rng()));
  }
  data[g.d->buffer.get()].assign(20, 0);
  ir::BufferData ref;
  ref[h.a->buffer.get()] = data[g.a->buffer.get()];
  ref[h.b->buffer.get()] = data[g.b->buffer.get()];
  ref[h.c->buffer.get()].assign(20, 0);
  ref[h.d->buffer.get()].assign(20, 0);
  ir::interpret(scoped, data);
  ir::interpret(lower(plain), ref);
  EXPECT_EQ(data[g.d->buffer.get()], ref[h.d->buffer.get()]);
  EXPECT_EQ(data.count(g.c->buffer.get()), 0u) << "C never touches DRAM";
}

TEST(SetScope, OutputsAndSecondScopesAreErrors) {
  GemmShift g;
  Schedule s({g.d});
  EXPECT_THAT([&] { s.set_scope(g.d, ir::Scope::kAcc); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("set_scope of 'D': it is an output of the schedule and stays in DRAM "
                            "(cache_write it instead)")));
  s.set_scope(g.c, ir::Scope::kAcc);
  EXPECT_THAT(
      [&] { s.set_scope(g.c, ir::Scope::kLocal); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("set_scope of 'C': it is already in acc.acc")));
  // A placeholder has no stage to move.
  EXPECT_THAT([&] { s.set_scope(g.a, ir::Scope::kInp); }, ::testing::Throws<UserError>());
}

}  // namespace
}  // namespace weft::compiler::te
