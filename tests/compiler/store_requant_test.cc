// Pass store_requant (compiler/passes/store_requant.h): an epilogue's trailing shifts and clip
// leave the program and the STOREs of their rows requantize instead, only for the exact pattern.
#include "compiler/passes/store_requant.h"

#include <gtest/gtest.h>

namespace weft::compiler::passes {
namespace {

using accel::Op;

Op rows_op(Op::Kind kind, int64_t first, int64_t count) {
  Op op;
  op.kind = kind;
  op.uops = {{first, first, 0}};
  op.iter_out = count;
  op.dst_factor_out = 1;
  op.src_factor_out = kind == Op::Kind::kGemm ? 0 : 1;
  return op;
}
Op alu(isa::AluOp o, int64_t imm, int64_t first = 0, int64_t count = 2) {
  Op op = rows_op(Op::Kind::kAlu, first, count);
  op.alu_op = o;
  op.use_imm = true;
  op.imm = imm;
  return op;
}
Op store(int64_t first, int64_t count, const ir::Buffer& out) {
  Op op;
  op.kind = Op::Kind::kStore;
  op.mem = isa::MemType::kOut;
  op.module = isa::Module::kStore;
  op.tensor = out;
  op.sram_base = first;
  op.y_size = 1;
  op.x_size = count;
  op.x_stride = count;
  return op;
}

// reset rows 0..1, GEMM, SHR 15, SHR 4, MAX lo, MIN hi, STORE rows 0..1.
accel::Program tile(const ir::Buffer& out, int64_t lo = 0, int64_t hi = 127) {
  accel::Program p;
  Op reset = rows_op(Op::Kind::kGemm, 0, 2);
  reset.reset = true;
  p.ops = {reset,
           rows_op(Op::Kind::kGemm, 0, 2),
           alu(isa::AluOp::kShr, 15),
           alu(isa::AluOp::kShr, 4),
           alu(isa::AluOp::kMax, lo),
           alu(isa::AluOp::kMin, hi),
           store(0, 2, out)};
  return p;
}

const ir::Buffer kOut = ir::make_buffer("D", ir::DType::kInt8, {2, 16});

TEST(StoreRequant, ShiftsAndClipMoveOntoTheStore) {
  int n = 0;
  const accel::Program p = store_requant(tile(kOut), &n);
  EXPECT_EQ(n, 4);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_EQ(p.ops[0].kind, Op::Kind::kGemm);
  EXPECT_EQ(p.ops[1].kind, Op::Kind::kGemm);
  EXPECT_EQ(p.ops[2].kind, Op::Kind::kStore);
  EXPECT_EQ(p.ops[2].requant, (isa::StoreRequant{true, 19, 0, 127}));
  // MIN before MAX is the same clamp; no shift is a shift of 0.
  accel::Program q = tile(kOut, -128, 96);
  std::swap(q.ops[4], q.ops[5]);
  q.ops.erase(q.ops.begin() + 2, q.ops.begin() + 4);
  const accel::Program r = store_requant(q, &n);
  EXPECT_EQ(n, 2);
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[2].requant, (isa::StoreRequant{true, 0, -128, 96}));
}

TEST(StoreRequant, AnythingElseIsLeftAlone) {
  int n = 0;
  auto unchanged = [&](const accel::Program& p) {
    const accel::Program out = store_requant(p, &n);
    EXPECT_EQ(out.ops.size(), p.ops.size());
    EXPECT_EQ(n, 0);
    for (const Op& op : out.ops) EXPECT_FALSE(op.requant.on);
  };
  // No MIN: the store would truncate, not clamp.
  accel::Program p = tile(kOut);
  p.ops.erase(p.ops.begin() + 5);
  unchanged(p);
  // A lower bound the STORE cannot encode.
  unchanged(tile(kOut, 5));
  // The clip before the shift: another function.
  p = tile(kOut);
  std::rotate(p.ops.begin() + 2, p.ops.begin() + 4, p.ops.begin() + 6);
  unchanged(p);
  // The rows are read again after the STORE (an ADD takes them as its source).
  p = tile(kOut);
  Op add = rows_op(Op::Kind::kAlu, 4, 2);
  add.uops = {{4, 0, 0}};
  p.ops.push_back(add);
  unchanged(p);
  // The ALU instructions cover rows no STORE reads.
  p = tile(kOut);
  for (size_t i = 2; i <= 5; ++i) p.ops[i].iter_out = 4;
  unchanged(p);
  // Shifts summing to more than 31.
  p = tile(kOut);
  p.ops[3].imm = 17;
  unchanged(p);
}

TEST(StoreRequant, StoresSharingTheInstructionsFoldTogether) {
  // The epilogue over rows 0..3, stored as two STOREs of two rows each.
  accel::Program p = tile(kOut);
  for (auto& op : p.ops) op.iter_out = 4;
  p.ops.back() = store(0, 2, kOut);
  p.ops.push_back(store(2, 2, kOut));
  int n = 0;
  const accel::Program out = store_requant(p, &n);
  EXPECT_EQ(n, 4);
  ASSERT_EQ(out.ops.size(), 4u);
  EXPECT_TRUE(out.ops[2].requant.on);
  EXPECT_TRUE(out.ops[3].requant.on);
  // Rewritten after the first STORE, rows 2..3 of the second would read another value: neither
  // folds.
  p.ops.insert(p.ops.end() - 1, alu(isa::AluOp::kAdd, 1, 2, 2));
  EXPECT_EQ(store_requant(p, &n).ops.size(), p.ops.size());
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace weft::compiler::passes
