// int8 requantization as loop IR; see int8_ir.h.
#include "compiler/ops/int8_ir.h"

#include <cmath>

#include "compiler/ops/index_ir.h"

namespace weft::compiler::ops {

ir::Expr sat8(ir::Expr v) {
  const ir::DType t = v->dtype;
  return ir::cast(ir::DType::kInt8, clamp(std::move(v), ir::imm(-128, t), ir::imm(127, t)));
}

ir::Expr shift_round(ir::Expr v, int s) {
  const ir::DType t = v->dtype;
  if (s > 0) return ir::shr(ir::add(v, ir::imm(int64_t{1} << (s - 1), t)), ir::imm(s, t));
  if (s == 0) return v;
  return ir::mul(v, ir::imm(int64_t{1} << -s, t));
}

ir::Expr round_div(ir::Expr num, ir::Expr den) {
  return ir::floordiv(ir::add(ir::mul(num, ir::imm(2, num->dtype)), den),
                      ir::mul(den, ir::imm(2, den->dtype)));
}

ir::Expr quantize(ir::Expr x, int e) {
  // x * 2^-e is exact (a power of two); clipping before rounding saturates alike.
  const ir::Expr v = ir::mul(std::move(x), ir::fimm(std::ldexp(1.0, -e)));
  return ir::cast(ir::DType::kInt8, ir::round_even(clamp(v, ir::fimm(-128.0), ir::fimm(127.0))));
}

ir::DType int_for_left_shift(int left) {
  return left <= 22 ? ir::DType::kInt32 : ir::DType::kInt64;
}

}  // namespace weft::compiler::ops
