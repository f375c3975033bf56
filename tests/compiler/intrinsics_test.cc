// The intrinsic registry: every intrinsic has one row (its printed name, operand counts,
// effect, micro-op kernel), calls are checked against it when built, print by it, and keep
// their intrinsic through the mutator; the interpreter runs intrinsics by registry entry.
#include "compiler/ir/intrinsics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "compiler/ir/interpreter.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ir {
namespace {

using ::testing::HasSubstr;

constexpr Intrinsic kAll[] = {
    Intrinsic::kSelect,          Intrinsic::kDot2I16,      Intrinsic::kDot4U8S8,
    Intrinsic::kDot4I8,          Intrinsic::kRoundEven,    Intrinsic::kRcp,
    Intrinsic::kExp,             Intrinsic::kTanh,         Intrinsic::kErf,
    Intrinsic::kSqrt,            Intrinsic::kPow,          Intrinsic::kFDiv,
    Intrinsic::kDmaCopy2d,       Intrinsic::kDmaCopy2dPad, Intrinsic::kGemm,
    Intrinsic::kGemmReset,       Intrinsic::kAlu,          Intrinsic::kGemmKernel,
    Intrinsic::kGemmResetKernel, Intrinsic::kAluKernel,    Intrinsic::kSyncThreads,
    Intrinsic::kWmmaMma,         Intrinsic::kWmmaFill};

TEST(Intrinsics, OneRowPerIntrinsicWithADistinctName) {
  std::set<std::string> names;
  for (Intrinsic op : kAll) {
    const IntrinsicInfo& info = intrinsic_info(op);
    EXPECT_EQ(info.op, op);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(std::string(info.name).rfind("weft.", 0), 0u) << info.name;
  }
  EXPECT_EQ(names.size(), 23u);
}

TEST(Intrinsics, TheTableSaysWhatThePassesAsk) {
  // fold_uops: block calls and their kernels; assign_queues: one instruction each.
  EXPECT_EQ(intrinsic_info(Intrinsic::kGemm).kernel, Intrinsic::kGemmKernel);
  EXPECT_EQ(intrinsic_info(Intrinsic::kGemmReset).kernel, Intrinsic::kGemmResetKernel);
  EXPECT_EQ(intrinsic_info(Intrinsic::kAlu).kernel, Intrinsic::kAluKernel);
  std::set<std::string> folding, instructions;
  for (Intrinsic op : kAll) {
    if (folds_to_kernel(op)) folding.insert(intrinsic_name(op));
    if (intrinsic_info(op).instruction) instructions.insert(intrinsic_name(op));
  }
  EXPECT_EQ(folding, (std::set<std::string>{"weft.alu", "weft.gemm", "weft.gemm_reset"}));
  EXPECT_EQ(instructions,
            (std::set<std::string>{"weft.alu_kernel", "weft.dma_copy2d", "weft.dma_copy2d_pad",
                                   "weft.gemm_kernel", "weft.gemm_reset_kernel"}));
  // A block call has one index argument per buffer (on-chip allocation offsets them).
  for (Intrinsic op : {Intrinsic::kGemm, Intrinsic::kGemmReset, Intrinsic::kAlu}) {
    EXPECT_GE(intrinsic_info(op).args, intrinsic_info(op).buffers) << intrinsic_name(op);
  }
  EXPECT_EQ(intrinsic_info(Intrinsic::kDmaCopy2d).effect, Effect::kDma);
  EXPECT_EQ(intrinsic_info(Intrinsic::kSyncThreads).effect, Effect::kBarrier);
  EXPECT_EQ(intrinsic_info(Intrinsic::kSelect).effect, Effect::kPure);
  EXPECT_EQ(intrinsic_info(Intrinsic::kWmmaMma).effect, Effect::kCompute);
}

TEST(Intrinsics, CallsAreCheckedAgainstTheRegistry) {
  const Buffer acc = make_buffer("C.acc", DType::kInt32, {2, 1, 4}, Scope::kAcc);
  EXPECT_THAT([&] { call(DType::kInt32, Intrinsic::kGemmReset, {}, {acc}); },
              ::testing::ThrowsMessage<InternalError>(
                  HasSubstr("call of weft.gemm_reset with 1 buffers and 0 arguments (it takes 1 "
                            "and 1)")));
  EXPECT_THAT([&] { call(DType::kInt32, Intrinsic::kGemmKernel, {imm(1)}, {acc}); },
              ::testing::ThrowsMessage<InternalError>(HasSubstr("it takes 3 and any number")));
  // Variadic kernels take any number of arguments.
  EXPECT_NO_THROW(call(DType::kInt32, Intrinsic::kAluKernel, {imm(1), imm(2)}, {acc, acc}));
}

TEST(Intrinsics, CallsPrintTheirNameBuffersFirst) {
  const Buffer acc = make_buffer("C.acc", DType::kInt32, {2, 1, 4}, Scope::kAcc);
  const Var i = make_var("i");
  EXPECT_EQ(to_string(call(DType::kInt32, Intrinsic::kGemmReset, {add(ref(i), imm(1))}, {acc})),
            "weft.gemm_reset(C.acc, (i + 1))");
  EXPECT_EQ(to_string(select(lt(ref(i), imm(2)), imm(3), imm(4))), "weft.select((i < 2), 3, 4)");
  EXPECT_EQ(to_string(call(DType::kInt32, Intrinsic::kSyncThreads, {})), "weft.cuda.syncthreads()");
}

class PlusOne : public Mutator {
 protected:
  Expr mutate_IntImm(const IntImm& n, const Expr&) override { return imm(n.value + 1); }
};

TEST(Intrinsics, TheMutatorKeepsTheIntrinsic) {
  const Buffer acc = make_buffer("C.acc", DType::kInt32, {2, 1, 4}, Scope::kAcc);
  const Expr c = call(DType::kInt32, Intrinsic::kGemmReset, {imm(0)}, {acc});
  const Expr m = PlusOne().mutate(c);
  ASSERT_EQ(m->kind, NodeKind::kCall);
  EXPECT_EQ(static_cast<const Call&>(*m).op, Intrinsic::kGemmReset);
  EXPECT_EQ(to_string(m), "weft.gemm_reset(C.acc, 1)");
}

TEST(Intrinsics, TheInterpreterRunsBuiltInsAndImplementationsByIntrinsic) {
  const Buffer out = make_buffer("O", DType::kInt32, {3});
  const Stmt s = seq({store(out, {imm(0)}, select(imm(0), imm(5), imm(6))),
                      store(out, {imm(1)}, dot2_i16(imm(0x00030002), imm(0x00050004))),
                      store(out, {imm(2)}, dot4_i8(imm(1), imm(1)))});
  BufferData data{{out.get(), std::vector<int64_t>(3, 0)}};
  // dot4_i8 is no built-in: without an implementation it is an error naming it.
  EXPECT_THAT([&] { interpret(s, data); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("unknown intrinsic 'weft.dot4_i8'")));
  IntrinsicImpls impls;
  impls[Intrinsic::kDot4I8] = [](const Call&, const std::vector<int64_t>& a, BufferData&) {
    return a[0] * a[1] + 40;
  };
  interpret(s, data, impls);
  EXPECT_EQ(data[out.get()], (std::vector<int64_t>{6, 2 * 4 + 3 * 5, 41}));
}

}  // namespace
}  // namespace weft::compiler::ir
