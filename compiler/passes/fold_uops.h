// Pass fold_uops: turns each perfect loop nest around one GEMM, GEMM reset or ALU block call into
// one micro-op kernel call, the shape of a GEMM instruction (loops of extent 1 are dropped
// first): the two outermost loops become
// the instruction's hardware loops (iter_out, iter_in, with dst/src/wgt factors) and the
// remaining inner loops are enumerated into the micro-op list, innermost fastest.
//
// Before: `for ... { weft.gemm(ACC, INP, WGT, acc, inp, wgt) }` (or weft.gemm_reset(ACC, acc))
// with indices affine in the nest's loops. After:
// `weft.gemm_kernel(ACC, INP, WGT, iter_out, iter_in, dst_out, dst_in, src_out, src_in,
//  wgt_out, wgt_in, n, dst_0, src_0, wgt_0, ..., dst_n-1, src_n-1, wgt_n-1)` (reset:
// `weft.gemm_reset_kernel(ACC, iter_out, iter_in, dst_out, dst_in, n, dst_0, ...)`; ALU
// block calls `weft.alu(ACC, ACC, dst, src, op, use_imm, imm)` become
// `weft.alu_kernel(ACC, ACC, iter_out, iter_in, dst_out, dst_in, src_out, src_in, op, use_imm,
// imm, n, dst_0, src_0, ...)`). Micro-op
// fields may still depend on loops outside the nest. An index that is not affine in the nest's
// loops is a UserError naming the loop.
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

/// The pass; see above.
ir::Stmt fold_uops(const ir::Stmt& s);

}  // namespace weft::compiler::passes
