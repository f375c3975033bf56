// Index arithmetic as loop IR; see index_ir.h.
#include "compiler/ops/index_ir.h"

namespace weft::compiler::ops {

ir::Expr clamp(ir::Expr v, ir::Expr lo, ir::Expr hi) {
  return ir::min(ir::max(std::move(v), std::move(lo)), std::move(hi));
}

ir::Expr clamp(ir::Expr v, int64_t lo, int64_t hi) {
  return clamp(std::move(v), ir::imm(lo), ir::imm(hi));
}

ir::Expr in_range(const ir::Expr& v, int64_t lo, int64_t hi) {
  return ir::logical_and(ir::ge(v, ir::imm(lo)), ir::lt(v, ir::imm(hi)));
}

ir::Expr inside(const ir::Expr& y, const ir::Expr& x, int64_t h, int64_t w) {
  return ir::logical_and(in_range(y, 0, h), in_range(x, 0, w));
}

ir::Expr guarded(const std::function<ir::Expr(const ir::Expr&, const ir::Expr&)>& at,
                 const ir::Expr& i, const ir::Expr& r, int64_t rows, int64_t cols, bool row_pad,
                 bool col_pad, ir::DType t) {
  ir::Expr ii = row_pad ? ir::min(i, ir::imm(rows - 1)) : i;
  ir::Expr rr = col_pad ? ir::min(r, ir::imm(cols - 1)) : r;
  ir::Expr v = at(ii, rr);
  ir::Expr ok;
  if (row_pad) ok = ir::lt(i, ir::imm(rows));
  if (col_pad) ok = ok ? ir::logical_and(ok, ir::lt(r, ir::imm(cols))) : ir::lt(r, ir::imm(cols));
  return ok ? ir::select(ok, v, ir::imm(0, t)) : v;
}

}  // namespace weft::compiler::ops
