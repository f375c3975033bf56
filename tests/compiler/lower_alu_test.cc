// Pass lower_alu: the quantization epilogue of an accumulator tile copy becomes in-place ALU
// passes (checked as printed IR before/after, and through the interpreter with the ALU's
// semantics from docs/isa.md), and epilogues the ALU cannot run are errors naming them.
#include "compiler/passes/lower_alu.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/dense.h"
#include "compiler/passes/allocate_onchip.h"
#include "compiler/passes/detect_dma.h"
#include "compiler/passes/expand_vthreads.h"
#include "compiler/passes/fold_uops.h"
#include "hardware/isa/errors.h"
#include "tests/compiler/packed_dense.h"

namespace weft::compiler::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// An output tile copy D[i, j, k, l] = value(C.acc[i, j, k, l]) over a 2 x 2 tile of 1 x 4
// blocks (tiny's accumulator block), marked as a DMA copy the way lowering marks it.
struct Epilogue {
  ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {2, 2, 1, 4}, ir::Scope::kAcc);
  ir::Buffer out = ir::make_buffer("D", DType::kInt8, {2, 2, 1, 4});
  ir::Var i = ir::make_var("i"), j = ir::make_var("j"), k = ir::make_var("k"),
          l = ir::make_var("l");

  ir::Expr c() const { return ir::load(acc, {ir::ref(i), ir::ref(j), ir::ref(k), ir::ref(l)}); }
  ir::Stmt copy(const ir::Expr& value, int64_t k_extent = 1, int64_t l_extent = 4) const {
    auto loop = [](const ir::Var& v, int64_t n, ir::Stmt body) {
      return ir::for_loop(v, ir::imm(0), ir::imm(n), ir::ForKind::kSerial, std::move(body));
    };
    return ir::attr(
        "pragma_dma_copy", ir::imm(1),
        loop(i, 2,
             loop(j, 2,
                  loop(k, k_extent,
                       loop(l, l_extent,
                            ir::store(out, {ir::ref(i), ir::ref(j), ir::ref(k), ir::ref(l)},
                                      value))))));
  }
};

ir::Expr i32(int64_t v) { return ir::imm(v, DType::kInt32); }

// The (opcode, immediate) of every weft.alu call, in program order.
std::vector<std::pair<isa::AluOp, int64_t>> alu_steps(const ir::Stmt& s) {
  struct Collect : ir::Visitor {
    std::vector<std::pair<isa::AluOp, int64_t>> steps;
    void visit_Call(const ir::Call& c) override {
      if (c.op == ir::Intrinsic::kAlu) {
        EXPECT_EQ(ir::as_imm(c.args.at(3))->value, 1) << "use_imm";
        steps.push_back({static_cast<isa::AluOp>(ir::as_imm(c.args.at(2))->value),
                         ir::as_imm(c.args.at(4))->value});
      }
      ir::Visitor::visit_Call(c);
    }
  } collect;
  collect.visit(s);
  return collect.steps;
}

using Step = std::pair<isa::AluOp, int64_t>;
constexpr isa::AluOp kMin = isa::AluOp::kMin, kMax = isa::AluOp::kMax, kAdd = isa::AluOp::kAdd,
                     kShr = isa::AluOp::kShr, kMul = isa::AluOp::kMul;

const isa::Layout& tiny() { return isa::layout_for("tiny"); }

TEST(LowerAlu, DenseEpilogueBecomesInPlaceAluPassesAndANarrowingCopy) {
  Epilogue e;
  const ir::Stmt before =
      e.copy(ir::cast(DType::kInt8, ir::min(ir::max(ir::shr(e.c(), i32(8)), i32(-128)), i32(127))));
  EXPECT_EQ(ir::to_string(before),
            "// attr pragma_dma_copy = 1\n"
            "for (i, 0, 2) {\n"
            "  for (j, 0, 2) {\n"
            "    for (k, 0, 1) {\n"
            "      for (l, 0, 4) {\n"
            "        D[i, j, k, l] = int8(min(max((C.acc[i, j, k, l] >> 8), -128), 127))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  // One pass per operation, innermost first (SHR 3, MAX 1, MIN 0), each over the tile's
  // blocks (i, j) at block index i*2 + j, then the plain narrowing copy for detect_dma.
  EXPECT_EQ(ir::to_string(passes::lower_alu(before, tiny())),
            "// attr pragma_alu = 1\n"
            "for (i, 0, 2) {\n"
            "  for (j, 0, 2) {\n"
            "    weft.alu(C.acc, C.acc, ((i*2) + j), ((i*2) + j), 3, 1, 8)\n"
            "  }\n"
            "}\n"
            "// attr pragma_alu = 1\n"
            "for (i, 0, 2) {\n"
            "  for (j, 0, 2) {\n"
            "    weft.alu(C.acc, C.acc, ((i*2) + j), ((i*2) + j), 1, 1, -128)\n"
            "  }\n"
            "}\n"
            "// attr pragma_alu = 1\n"
            "for (i, 0, 2) {\n"
            "  for (j, 0, 2) {\n"
            "    weft.alu(C.acc, C.acc, ((i*2) + j), ((i*2) + j), 0, 1, 127)\n"
            "  }\n"
            "}\n"
            "// attr pragma_dma_copy = 1\n"
            "for (i, 0, 2) {\n"
            "  for (j, 0, 2) {\n"
            "    for (k, 0, 1) {\n"
            "      for (l, 0, 4) {\n"
            "        D[i, j, k, l] = int8(C.acc[i, j, k, l])\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerAlu, TheDenseOperatorsEpilogueInThePipeline) {
  // make_dense on tiny, 2 x 2 output blocks in one tile: the epilogue after the K loop.
  const ops::Dense d = ops::make_dense(tiny(), {2, 8, 4}, {2, 2, 1, 1, 'm'}, {20, true});
  const std::string before = ir::to_string(lower(*d.schedule));
  EXPECT_THAT(before, HasSubstr("D[((i.outer*2) + i.inner), ((j.outer*2) + j.inner), k, l] = "
                                "int8(min(max((C.acc[i.inner, j.inner, k, l] >> 20), 0), 127))"));
  const ir::Stmt after = passes::lower_alu(lower(*d.schedule), tiny());
  const std::string text = ir::to_string(after);
  EXPECT_THAT(text, HasSubstr("    // attr pragma_alu = 1\n"
                              "    for (i.inner, 0, 2) {\n"
                              "      for (j.inner, 0, 2) {\n"
                              "        weft.alu(C.acc, C.acc, ((i.inner*2) + j.inner), "
                              "((i.inner*2) + j.inner), 3, 1, 15)\n"
                              "      }\n"
                              "    }\n"));
  EXPECT_THAT(text, HasSubstr("D[((i.outer*2) + i.inner), ((j.outer*2) + j.inner), k, l] = "
                              "int8(C.acc[i.inner, j.inner, k, l])"));
  // Relu clips at 0; the shift of 20 is two passes.
  EXPECT_THAT(alu_steps(after),
              ElementsAre(Step{kShr, 15}, Step{kShr, 5}, Step{kMax, 0}, Step{kMin, 127}));
  // The GEMM and the input/weight copies are not epilogues: untouched.
  EXPECT_THAT(text, HasSubstr("A.inp[ax0, ax1, ax2, ax3] = A[((i.outer*2) + ax0), "
                              "(ko.outer + ax1), ax2, ax3]"));
}

TEST(LowerAlu, OperationsArePeeledInnermostFirst) {
  Epilogue e;
  // ((((C * 3) + 7) >> 2) max -5) min 100
  const ir::Expr v =
      ir::min(ir::max(ir::shr(ir::add(ir::mul(e.c(), i32(3)), i32(7)), i32(2)), i32(-5)), i32(100));
  EXPECT_THAT(
      alu_steps(passes::lower_alu(e.copy(ir::cast(DType::kInt8, v)), tiny())),
      ElementsAre(Step{kMul, 3}, Step{kAdd, 7}, Step{kShr, 2}, Step{kMax, -5}, Step{kMin, 100}));
  // The same operations in another order give the passes in that order.
  const ir::Expr w = ir::mul(ir::add(ir::min(e.c(), i32(100)), i32(-1)), i32(2));
  EXPECT_THAT(alu_steps(passes::lower_alu(e.copy(w), tiny())),
              ElementsAre(Step{kMin, 100}, Step{kAdd, -1}, Step{kMul, 2}));
}

TEST(LowerAlu, LongShiftsSplitIntoTheLargestImmediateShifts) {
  // SHR reads its amount as a signed 5-bit number on int32 accumulators: 15 at most.
  Epilogue e;
  auto shifts = [&](int64_t n) {
    return alu_steps(passes::lower_alu(e.copy(ir::shr(e.c(), i32(n))), tiny()));
  };
  EXPECT_THAT(shifts(20), ElementsAre(Step{kShr, 15}, Step{kShr, 5}));
  EXPECT_THAT(shifts(15), ElementsAre(Step{kShr, 15}));
  EXPECT_THAT(shifts(16), ElementsAre(Step{kShr, 15}, Step{kShr, 1}));
  EXPECT_THAT(shifts(31), ElementsAre(Step{kShr, 15}, Step{kShr, 15}, Step{kShr, 1}));
  EXPECT_THAT(shifts(1), ElementsAre(Step{kShr, 1}));
}

TEST(LowerAlu, ACommutedConstantIsAccepted) {
  Epilogue e;
  const ir::Expr v = ir::cast(
      DType::kInt8, ir::min(i32(127), ir::max(i32(-128), ir::add(i32(4), ir::mul(i32(2), e.c())))));
  EXPECT_THAT(alu_steps(passes::lower_alu(e.copy(v), tiny())),
              ElementsAre(Step{kMul, 2}, Step{kAdd, 4}, Step{kMax, -128}, Step{kMin, 127}));
}

// Per-channel requantization: the amounts come from a second accumulator tile (one per
// output lane, loaded like a bias) and the SHR reads it as its register operand (use_imm 0),
// after the immediate shift common to all channels.
TEST(LowerAlu, ShiftByATileOfAmountsIsOneRegisterShr) {
  Epilogue e;
  const ir::Buffer amounts = ir::make_buffer("S.acc", DType::kInt32, {2, 1, 4}, ir::Scope::kAcc);
  const ir::Expr s = ir::load(amounts, {ir::ref(e.j), ir::ref(e.k), ir::ref(e.l)});
  const ir::Stmt lowered =
      passes::lower_alu(e.copy(ir::min(ir::shr(ir::shr(e.c(), i32(3)), s), i32(127))), tiny());
  const std::string text = ir::to_string(lowered);
  EXPECT_THAT(text, HasSubstr("weft.alu(C.acc, C.acc, ((i*2) + j), ((i*2) + j), 3, 1, 3)\n"));
  EXPECT_THAT(text, HasSubstr("weft.alu(C.acc, S.acc, ((i*2) + j), j, 3, 0, 0)\n"));
  EXPECT_LT(text.find(", 3, 1, 3)"), text.find(", 3, 0, 0)"));  // immediate first
}

TEST(LowerAlu, ImmediatesAtTheEdgesOf16BitsAreAccepted) {
  Epilogue e;
  EXPECT_THAT(alu_steps(passes::lower_alu(e.copy(ir::min(ir::max(e.c(), i32(-32768)), i32(32767))),
                                          tiny())),
              ElementsAre(Step{kMax, -32768}, Step{kMin, 32767}));
}

TEST(LowerAlu, EpiloguesTheAluCannotRunAreErrors) {
  Epilogue e;
  auto lower_value = [&](const ir::Expr& v) { return passes::lower_alu(e.copy(v), tiny()); };
  auto throws = [](const std::string& what) { return ThrowsMessage<UserError>(HasSubstr(what)); };
  // Operands that are neither constants nor accumulator tiles: a shift by a loop variable,
  // or by a value computed from the tile. (A shift by an accumulator tile is a per-lane
  // register shift: ShiftByATileOfAmountsIsOneRegisterShr.)
  EXPECT_THAT([&] { lower_value(ir::shr(e.c(), ir::add(e.c(), i32(1)))); },
              throws("ALU epilogue of 'D': (C.acc[i, j, k, l] >> (C.acc[i, j, k, l] + 1)) has no "
                     "constant operand"));
  EXPECT_THAT([&] { lower_value(ir::shr(e.c(), ir::cast(DType::kInt32, ir::ref(e.i)))); },
              throws("(C.acc[i, j, k, l] >> int32(i)) has no constant operand"));
  // A constant on the left only counts for operations that commute.
  EXPECT_THAT([&] { lower_value(ir::shr(i32(5), e.c())); }, throws("has no constant operand"));
  // Operations the ALU does not have.
  EXPECT_THAT([&] { lower_value(ir::sub(e.c(), i32(3))); },
              throws("ALU epilogue of 'D': (C.acc[i, j, k, l] - 3) uses '-', which the ALU "
                     "does not have (supported: min, max, add, mul with a constant"));
  EXPECT_THAT([&] { lower_value(ir::floordiv(e.c(), i32(4))); },
              throws("(C.acc[i, j, k, l]/4) uses '/', which the ALU does not have"));
  EXPECT_THAT([&] { lower_value(ir::floormod(e.c(), i32(4))); }, throws("uses '%'"));
  // Something that is not a binary operation under the outer narrowing cast.
  EXPECT_THAT([&] { lower_value(ir::cast(DType::kInt8, ir::cast(DType::kInt64, e.c()))); },
              throws("is not an ALU operation"));
  // Immediates beyond the 16-bit field, and shifts beyond the word.
  EXPECT_THAT([&] { lower_value(ir::min(e.c(), i32(40000))); },
              throws("min(C.acc[i, j, k, l], 40000) has the constant 40000, beyond the ALU's "
                     "16-bit immediate"));
  EXPECT_THAT([&] { lower_value(ir::max(e.c(), i32(-32769))); }, throws("the constant -32769"));
  EXPECT_THAT([&] { lower_value(ir::mul(e.c(), i32(32768))); }, throws("the constant 32768"));
  EXPECT_THAT([&] { lower_value(ir::shr(e.c(), i32(40))); }, throws("shifts by 40 (0 to 31"));
  EXPECT_THAT([&] { lower_value(ir::shr(e.c(), i32(-3))); }, throws("shifts by -3 (0 to 31"));
  // The value at the bottom must come from the accumulator.
  const ir::Buffer dram = ir::make_buffer("G", DType::kInt32, {2, 2, 1, 4});
  EXPECT_THAT(
      [&] {
        lower_value(ir::min(
            ir::load(dram, {ir::ref(e.i), ir::ref(e.j), ir::ref(e.k), ir::ref(e.l)}), i32(3)));
      },
      throws("G[i, j, k, l] reads 'G', which is not in the accumulator"));
}

TEST(LowerAlu, LoopsThatDoNotSweepWholeBlocksAreErrors) {
  const std::string msg =
      "ALU epilogue of 'D': the two innermost loops must sweep whole accumulator blocks of "
      "'C.acc'";
  Epilogue e;
  const ir::Expr clip = ir::min(e.c(), i32(127));
  // Half a block: l runs over 2 of the block's 4 lanes.
  EXPECT_THAT([&] { passes::lower_alu(e.copy(clip, 1, 2), tiny()); },
              ThrowsMessage<UserError>(HasSubstr(msg)));
  // The block's dimensions indexed by the wrong loops (l, k swapped).
  const ir::Expr swapped =
      ir::min(ir::load(e.acc, {ir::ref(e.i), ir::ref(e.j), ir::ref(e.l), ir::ref(e.k)}), i32(127));
  EXPECT_THAT([&] { passes::lower_alu(e.copy(swapped), tiny()); },
              ThrowsMessage<UserError>(HasSubstr(msg)));
  // A block dimension indexed by an offset expression instead of the loop itself.
  const ir::Expr shifted = ir::min(ir::load(e.acc, {ir::ref(e.i), ir::ref(e.j), ir::ref(e.k),
                                                    ir::add(ir::ref(e.l), ir::imm(0))}),
                                   i32(127));
  EXPECT_NO_THROW(passes::lower_alu(e.copy(shifted), tiny()));  // + 0 folds away
  const ir::Expr offset =
      ir::min(ir::load(e.acc, {ir::ref(e.i), ir::ref(e.j), ir::imm(0), ir::ref(e.l)}), i32(127));
  EXPECT_THAT([&] { passes::lower_alu(e.copy(offset), tiny()); },
              ThrowsMessage<UserError>(HasSubstr(msg)));
}

TEST(LowerAlu, PlainAndNarrowingCopiesAreLeftAlone) {
  Epilogue e;
  for (const ir::Stmt& s : {e.copy(e.c()), e.copy(ir::cast(DType::kInt8, e.c()))}) {
    const ir::Stmt after = passes::lower_alu(s, tiny());
    EXPECT_EQ(after, s) << "the same statement, not a rebuilt one";
    EXPECT_EQ(ir::to_string(after), ir::to_string(s));
  }
  // Statements that are not DMA copies are not epilogues, whatever they compute.
  const ir::Stmt unmarked =
      ir::store(e.out, {ir::imm(0), ir::imm(0), ir::imm(0), ir::imm(0)}, ir::imm(1, DType::kInt8));
  EXPECT_EQ(passes::lower_alu(unmarked, tiny()), unmarked);
}

// Random int8 data in A and W; D zeroed.
ir::BufferData random_inputs(const ops::Dense& d, uint32_t seed) {
  std::mt19937 rng(seed);
  ir::BufferData data;
  for (const Tensor& t : {d.a, d.w}) {
    auto& v = data[t->buffer.get()];
    v.resize(static_cast<size_t>(t->buffer->elements()));
    for (auto& x : v) x = static_cast<int8_t>(rng());
  }
  data[d.d->buffer.get()].assign(static_cast<size_t>(d.d->buffer->elements()), 0);
  return data;
}

ir::IntrinsicImpls all_semantics(const isa::Layout& l) {
  auto m = gemm_semantics(gemm_intrinsic(l));
  m[ir::Intrinsic::kDmaCopy2d] = dma_semantics();
  for (auto& [op, f] : alu_semantics()) m[op] = f;
  return m;
}

TEST(LowerAlu, AluPassesKeepTheDenseResult) {
  struct Case {
    const char* config;
    ops::DenseShape shape;
    ops::DenseKnobs knobs;
    ops::DenseEpilogue epilogue;
  };
  const Case cases[] = {
      {"tiny", {3, 9, 20}, {2, 2, 2, 1, 'm'}, {6, false}},
      {"tiny", {5, 8, 16}, {1, 2, 1, 2, 'm'}, {20, false}},
      {"tiny", {4, 12, 8}, {2, 1, 2, 2, 'n'}, {0, true}},
      {"gemm8x8", {20, 12, 30}, {2, 1, 2, 1, 'm'}, {9, false}},
      {"vta", {3, 40, 50}, {1, 2, 2, 1, 'm'}, {31, false}},
      {"vta", {3, 40, 50}, {1, 2, 2, 1, 'm'}, {4, true}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.config) + " " + c.knobs.describe() + " shift " +
                 std::to_string(c.epilogue.shift));
    const isa::Layout& l = isa::layout_for(c.config);
    const ops::Dense d = ops::make_dense(l, c.shape, c.knobs, c.epilogue);
    const ir::Stmt lowered = lower(*d.schedule);
    const auto sem = all_semantics(l);
    ir::BufferData expect = random_inputs(d, 5);
    ir::BufferData alu = expect, dma = expect;
    ir::interpret(lowered, expect, sem);
    const ir::Stmt with_alu = passes::lower_alu(lowered, l);
    ir::interpret(with_alu, alu, sem);
    ir::interpret(passes::detect_dma(with_alu), dma, sem);
    const auto& out = expect[d.d->buffer.get()];
    EXPECT_EQ(alu[d.d->buffer.get()], out);
    EXPECT_EQ(dma[d.d->buffer.get()], out);
    // Not one repeated value: the comparison means something.
    EXPECT_GT(std::set<int64_t>(out.begin(), out.end()).size(), 1u);
  }
}

TEST(LowerAlu, FoldedAluKernelsKeepTheDenseResult) {
  // One thread: every on-chip tile sits at base 0, so the interpreter can run the program
  // after allocation and folding too (ALU passes as weft.alu_kernel).
  for (const char* config : {"tiny", "gemm8x8"}) {
    SCOPED_TRACE(config);
    const isa::Layout& l = isa::layout_for(config);
    const ops::Dense d = ops::make_dense(l, {9, 12, 40}, {2, 2, 2, 1, 'm'}, {7, false});
    const auto sem = all_semantics(l);
    ir::BufferData expect = random_inputs(d, 9), folded = expect;
    ir::interpret(lower(*d.schedule), expect, sem);
    const ir::Stmt s = passes::fold_uops(passes::allocate_onchip(
        passes::expand_vthreads(passes::detect_dma(passes::lower_alu(lower(*d.schedule), l))), l));
    const std::string text = ir::to_string(s);
    EXPECT_THAT(text, HasSubstr("weft.alu_kernel(C.acc, C.acc, "));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("weft.alu(")));
    ir::interpret(s, folded, sem);
    EXPECT_EQ(folded[d.d->buffer.get()], expect[d.d->buffer.get()]);
  }
}

TEST(LowerAlu, AddAndMulWrapAt32BitsLikeTheIr) {
  // Large products overflow int32: the ALU's wrapping ADD/MUL must agree with the IR's int32
  // arithmetic, and a negative shift amount never arises (shifts are split, not negated).
  const isa::Layout& l = tiny();
  const ir::Buffer acc = ir::make_buffer("C.acc", DType::kInt32, {2, 2, 1, 4}, ir::Scope::kAcc);
  const ir::Buffer src = ir::make_buffer("S", DType::kInt32, {2, 2, 1, 4});
  const ir::Buffer out = ir::make_buffer("D", DType::kInt32, {2, 2, 1, 4});
  const ir::Var i = ir::make_var("i"), j = ir::make_var("j"), k = ir::make_var("k"),
                m = ir::make_var("l");
  const std::vector<ir::Expr> idx = {ir::ref(i), ir::ref(j), ir::ref(k), ir::ref(m)};
  auto nest = [&](ir::Stmt body) {
    for (auto [v, n] : {std::pair{m, 4}, {k, 1}, {j, 2}, {i, 2}}) {
      body = ir::for_loop(v, ir::imm(0), ir::imm(n), ir::ForKind::kSerial, body);
    }
    return body;
  };
  const ir::Expr value = ir::min(
      ir::max(ir::shr(ir::add(ir::mul(ir::load(acc, idx), i32(30001)), i32(-32768)), i32(19)),
              i32(-1000)),
      i32(1000));
  const ir::Stmt program = ir::allocate(
      acc, ir::seq({nest(ir::store(acc, idx, ir::load(src, idx))),
                    ir::attr("pragma_dma_copy", ir::imm(1), nest(ir::store(out, idx, value)))}));
  std::mt19937 rng(17);
  ir::BufferData expect;
  auto& in = expect[src.get()];
  for (int n = 0; n < 16; ++n) in.push_back(static_cast<int32_t>(rng()) / 4);
  expect[out.get()].assign(16, 0);
  ir::BufferData got = expect;
  ir::interpret(program, expect, alu_semantics());
  ir::interpret(passes::lower_alu(program, l), got, alu_semantics());
  EXPECT_EQ(got[out.get()], expect[out.get()]);
  EXPECT_NE(expect[out.get()], std::vector<int64_t>(16, 0));
}

}  // namespace
}  // namespace weft::compiler::te
