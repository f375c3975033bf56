// The loop IR: builders fold constants, the printer's text, the mutator keeps unchanged trees,
// and the reference interpreter runs loops, wraps stores and reports out-of-bounds accesses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ir {
namespace {

using ::testing::HasSubstr;

TEST(Ir, BuildersFoldConstantsAndIdentities) {
  const Var i = make_var("i");
  EXPECT_EQ(as_imm(add(imm(2), imm(3)))->value, 5);
  EXPECT_EQ(as_imm(floordiv(imm(-7), imm(2)))->value, -4);  // floor, not truncation
  EXPECT_EQ(as_imm(floormod(imm(-7), imm(2)))->value, 1);
  EXPECT_EQ(to_string(add(mul(ref(i), imm(1)), imm(0))), "i");
  EXPECT_EQ(to_string(add(mul(ref(i), imm(8)), imm(3))), "((i*8) + 3)");
  EXPECT_EQ(as_imm(mul(ref(i), imm(0)))->value, 0);
}

TEST(Ir, PrinterShowsLoopsStoresAndAnnotations) {
  const Buffer a = make_buffer("A", DType::kInt32, {4, 8});
  const Buffer t = make_buffer("T", DType::kInt8, {8}, Scope::kInp);
  const Var i = make_var("i"), j = make_var("j");
  const Stmt s = allocate(
      t,
      attr("pragma_dma_copy", imm(1),
           for_loop(i, imm(0), imm(4), ForKind::kVirtualThread,
                    for_loop(j, imm(0), imm(8), ForKind::kSerial,
                             if_then_else(lt(ref(j), imm(6)),
                                          store(a, {ref(i), ref(j)},
                                                add(load(a, {ref(i), ref(j)}),
                                                    cast(DType::kInt32, load(t, {ref(j)})))))))));
  EXPECT_EQ(to_string(s),
            "allocate T[int8 * 8] in acc.inp\n"
            "// attr pragma_dma_copy = 1\n"
            "vthread (i, 0, 4) {\n"
            "  for (j, 0, 8) {\n"
            "    if ((j < 6)) {\n"
            "      A[i, j] = (A[i, j] + int32(T[j]))\n"
            "    }\n"
            "  }\n"
            "}\n");
}

class CountLoads : public Visitor {
 public:
  int loads = 0;

 protected:
  void visit_Load(const Load& n) override {
    ++loads;
    Visitor::visit_Load(n);
  }
};

class RenameBuffer : public Mutator {
 public:
  RenameBuffer(Buffer from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  Expr mutate_Load(const Load& n, const Expr& self) override {
    return n.buffer == from_ ? load(to_, n.indices) : Mutator::mutate_Load(n, self);
  }

 private:
  Buffer from_, to_;
};

TEST(Ir, VisitorAndMutator) {
  const Buffer a = make_buffer("A", DType::kInt32, {4});
  const Buffer b = make_buffer("B", DType::kInt32, {4});
  const Var i = make_var("i");
  const Stmt s = for_loop(i, imm(0), imm(4), ForKind::kSerial,
                          store(a, {ref(i)}, add(load(a, {ref(i)}), load(a, {ref(i)}))));
  CountLoads c;
  c.visit(s);
  EXPECT_EQ(c.loads, 2);
  RenameBuffer keep(b, a);
  EXPECT_EQ(keep.mutate(s), s);  // nothing to change: the same tree comes back
  RenameBuffer swap(a, b);
  EXPECT_EQ(to_string(swap.mutate(s)), "for (i, 0, 4) {\n  A[i] = (B[i] + B[i])\n}\n");
}

TEST(Ir, InterpreterRunsLoopsAndWrapsStores) {
  const Buffer a = make_buffer("A", DType::kInt8, {3});
  const Var i = make_var("i");
  const Stmt s = for_loop(i, imm(0), imm(3), ForKind::kSerial,
                          store(a, {ref(i)}, mul(add(ref(i), imm(1)), imm(100))));
  BufferData data;
  data[a.get()] = {0, 0, 0};
  interpret(s, data);
  EXPECT_EQ(data[a.get()], (std::vector<int64_t>{100, -56, 44}));  // 200, 300 wrap to int8
}

TEST(Ir, InterpreterReportsOutOfBoundsAndUnboundBuffers) {
  const Buffer a = make_buffer("A", DType::kInt32, {2, 3});
  const Var i = make_var("i");
  const Stmt s = for_loop(i, imm(0), imm(4), ForKind::kSerial, store(a, {imm(1), ref(i)}, imm(0)));
  BufferData data;
  EXPECT_THAT([&] { interpret(s, data); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("buffer 'A' is not bound")));
  data[a.get()].assign(6, 0);
  EXPECT_THAT([&] { interpret(s, data); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("index 3 of dimension 1 of buffer 'A' is outside [0, 3)")));
}

TEST(Ir, BadShapesAreUserErrors) {
  EXPECT_THAT(
      [] {
        make_buffer("X", DType::kInt8, {4, 0});
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("buffer 'X': dimension 0")));
}

}  // namespace
}  // namespace weft::compiler::ir
