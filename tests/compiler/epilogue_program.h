// A hand-made conv2d epilogue program for the tests of the program rewrites (bias_gemm,
// residual_init): reset rows 0..1, a GEMM, a bias load into rows 8..9, ADD rows 0..1 from
// 8..9, SHR 4, a residual load into rows 16..17, ADD rows 0..1 from 16..17 (and, when
// `bias_read_again`, a MIN that reads the bias rows once more).
#pragma once

#include "compiler/accel/program.h"

namespace weft::compiler::passes {

inline accel::Program epilogue(const ir::Buffer& bias, const ir::Buffer& res,
                               bool bias_read_again) {
  accel::Program p;
  using accel::Op;
  auto kernel = [](Op::Kind kind, int64_t dst, int64_t src) {
    Op op;
    op.kind = kind;
    op.uops = {{dst, src, 0}};
    op.iter_out = 2;
    op.dst_factor_out = 1;
    op.src_factor_out = kind == Op::Kind::kGemm ? 0 : 1;
    return op;
  };
  auto load = [](isa::MemType mem, const ir::Buffer& t, int64_t sram) {
    Op op;
    op.kind = Op::Kind::kLoad;
    op.mem = mem;
    op.tensor = t;
    op.sram_base = sram;
    op.y_size = 1;
    op.x_size = 2;
    op.x_stride = 2;
    op.module = accel::module_of(op);
    return op;
  };
  Op reset = kernel(Op::Kind::kGemm, 0, 0);
  reset.reset = true;
  p.ops.push_back(reset);
  p.ops.push_back(kernel(Op::Kind::kGemm, 0, 0));
  p.ops.push_back(load(isa::MemType::kAcc, bias, 8));
  Op add = kernel(Op::Kind::kAlu, 0, 8);
  p.ops.push_back(add);
  Op shr = kernel(Op::Kind::kAlu, 0, 0);
  shr.alu_op = isa::AluOp::kShr;
  shr.use_imm = true;
  shr.imm = 4;
  p.ops.push_back(shr);
  p.ops.push_back(load(isa::MemType::kAcc8Bit, res, 16));
  p.ops.push_back(kernel(Op::Kind::kAlu, 0, 16));
  if (bias_read_again) {
    Op min = kernel(Op::Kind::kAlu, 0, 8);
    min.alu_op = isa::AluOp::kMin;
    p.ops.push_back(min);
  }
  return p;
}

}  // namespace weft::compiler::passes
