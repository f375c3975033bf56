// int8 requantization as loop IR: builders of the rounding rules that every interpreter and
// kernel of Weft follows (compiler/ops/int8_rounding.h states them on integers; the kernels
// generated from these builders compute the same values, which
// tests/compiler/ops/int8_ir_test.cc checks over many values):
//   sat8(v)           = clip(v, -128, 127) as int8
//   shift_round(v, s) = (v + 2^(s-1)) >> s for s > 0, v * 2^-s for s <= 0   (half up)
//   round_div(n, d)   = floor((2n + d) / 2d)                                 (half up, d > 0)
//   quantize(x, e)    = int8(round_half_even(clip(x * 2^-e, -128, 127)))      (x * 2^-e exact)
#pragma once

#include "compiler/ir/ir.h"

namespace weft::compiler::ops {

/// clip(v, -128, 127) in v's type, then as int8.
ir::Expr sat8(ir::Expr v);
/// v shifted right by `s` with rounding half up (s > 0), or left by -s (s < 0), in v's type.
ir::Expr shift_round(ir::Expr v, int s);
/// num / den rounded half up (den > 0), in the operands' type.
ir::Expr round_div(ir::Expr num, ir::Expr den);
/// A float32 real `x` to int8 at scale 2^e: x * 2^-e clipped to [-128, 127], rounded half to
/// even.
ir::Expr quantize(ir::Expr x, int e);
/// The integer type that holds int8 values shifted left by up to `left` bits, doubled (int32
/// up to 22 bits, else int64).
ir::DType int_for_left_shift(int left);

}  // namespace weft::compiler::ops
