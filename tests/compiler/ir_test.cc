// The loop IR: builders fold constants, the printer's text (a GPU-bound loop's binding too),
// the mutator keeps unchanged trees and loop bindings, and the reference interpreter runs loops,
// wraps stores and reports out-of-bounds accesses.
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

TEST(Ir, ABoundLoopPrintsItsBindingAndKeepsItThroughPasses) {
  const Buffer a = make_buffer("A", DType::kInt32, {64});
  const Var b = make_var("b"), t = make_var("t");
  const Stmt s = for_loop(
      b, imm(0), imm(2), ForKind::kSerial,
      for_loop(t, imm(0), imm(32), ForKind::kSerial,
               store(a, {add(mul(ref(b), imm(32)), ref(t))}, imm(1)), ThreadAxis::kThreadX),
      ThreadAxis::kBlockX);
  const std::string text =
      "// attr bind.blockIdx.x = 2\n"
      "for (b, 0, 2) {\n"
      "  // attr bind.threadIdx.x = 32\n"
      "  for (t, 0, 32) {\n"
      "    A[((b*32) + t)] = 1\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(to_string(s), text);
  // A rebuilt loop keeps its binding (the mutator, with_body).
  class RenameStore : public Mutator {
   protected:
    Stmt mutate_Store(const Store& n, const Stmt&) override {
      return store(n.buffer, n.indices, imm(2));
    }
  };
  const Stmt m = RenameStore().mutate(s);
  const auto& outer = static_cast<const For&>(*m);
  EXPECT_EQ(outer.thread, ThreadAxis::kBlockX);
  EXPECT_EQ(static_cast<const For&>(*outer.body).thread, ThreadAxis::kThreadX);
  EXPECT_EQ(static_cast<const For&>(*with_body(outer, evaluate(imm(0)))).thread,
            ThreadAxis::kBlockX);
  EXPECT_STREQ(thread_axis_name(ThreadAxis::kThreadZ), "threadIdx.z");
  EXPECT_TRUE(is_thread_index(ThreadAxis::kThreadX));
  EXPECT_FALSE(is_thread_index(ThreadAxis::kBlockZ));
}

TEST(Ir, FlatIndexIsRowMajorOverTheLeadingDimensions) {
  const Buffer a = make_buffer("A", DType::kInt32, {2, 3, 4, 5});
  const Var i = make_var("i"), j = make_var("j"), k = make_var("k"), l = make_var("l");
  const std::vector<Expr> idx = {ref(i), ref(j), ref(k), ref(l)};
  EXPECT_EQ(to_string(flat_index(a, idx, 4)), "((((((i*3) + j)*4) + k)*5) + l)");
  EXPECT_EQ(to_string(flat_index(a, idx, 2)), "((i*3) + j)");
  EXPECT_EQ(to_string(flat_index(a, idx, 0)), "0");
  EXPECT_TRUE(is_var(idx[1], j));
  EXPECT_FALSE(is_var(idx[1], i));
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
