// The CPU kernels with packed outputs; see packed.h.
#include "compiler/ops/cpu/packed.h"

#include <algorithm>
#include <initializer_list>

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/int8_ir.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;

namespace {

Expr i64(int64_t v) { return ir::imm(v, IDT::kInt64); }

Expr all(std::initializer_list<Expr> cs) {
  Expr r;
  for (const Expr& c : cs) r = r ? ir::logical_and(r, c) : c;
  return r;
}

}  // namespace

LoweredOp im2col_packed(const Im2ColPacked& p) {
  const PackedGeom& g = p.y;
  const int64_t R = p.rows, K = p.k, s = p.stride, pt = p.pad_top, pl = p.pad_left;
  const int64_t nconsts = p.consts;
  const int64_t C = p.x[1], H = p.x[2], W = p.x[3], CKK = C * K * K;
  const int64_t WR = (R - 1) * s + K, WP = (g.w - 1) * s + K;  // the window's rows, columns
  te::Tensor x = te::placeholder(p.x, p.f32 ? IDT::kFloat32 : IDT::kInt8, "X");
  te::Tensor cs = te::placeholder({std::max<int64_t>(nconsts, 1)}, IDT::kInt32, "consts");
  te::Tensor r0 = te::placeholder({1}, IDT::kInt32, "R0");
  // Stage 1, once per call: the input rows the chunk's windows read, quantized (f32) and
  // zero-padded (rows and columns outside the input), Q[bt][c][wr][wx] (a kernel workspace).
  te::Tensor q = te::compute(
      {g.n, C, WR, WP}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const Expr iy =
            ir::add(ir::add(ir::mul(ir::cast(IDT::kInt64, r0({i64(0)})), i64(s)), i[2]), i64(-pt));
        const Expr ix = ir::add(i[3], i64(-pl));
        Expr v = x({i[0], i[1], clamp(iy, 0, H - 1), clamp(ix, 0, W - 1)});
        if (p.f32) v = quantize(v, p.e);  // as weft.Quantize
        return ir::select(
            all({ir::ge(iy, i64(0)), ir::lt(iy, i64(H)), ir::ge(ix, i64(0)), ir::lt(ix, i64(W))}),
            v, ir::imm(0, IDT::kInt8));
      },
      "Q");
  // Stage 2: the gather, column by column.
  te::Tensor y = te::compute(
      {g.nb(), g.cb(), R, g.w, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const Expr bt = ir::add(ir::mul(i[0], i64(g.bn)), i[4]);
        const Expr oc = ir::add(ir::mul(i[1], i64(g.bc)), i[5]);
        const Expr c = ir::floordiv(oc, i64(K * K)), k = ir::floormod(oc, i64(K * K));
        const Expr v = q({clamp(bt, 0, g.n - 1), clamp(c, 0, C - 1),
                          ir::add(ir::mul(i[2], i64(s)), ir::floordiv(k, i64(K))),
                          ir::add(ir::mul(i[3], i64(s)), ir::floormod(k, i64(K)))});
        Expr cv = ir::imm(0, IDT::kInt8);
        if (nconsts > 0)
          cv = ir::select(ir::lt(oc, i64(CKK + nconsts)),
                          ir::cast(IDT::kInt8, cs({clamp(ir::add(oc, i64(-CKK)), 0, nconsts - 1)})),
                          ir::imm(0, IDT::kInt8));
        return ir::select(ir::lt(bt, i64(g.n)), ir::select(ir::lt(oc, i64(CKK)), v, cv),
                          ir::imm(0, IDT::kInt8));
      },
      "Y");
  // Column by column as the plain loop: the (batch row, column) loops outside, so the column's
  // input channel and tap (the divisions by K) are loop-invariant in the row and x loops.
  te::Schedule sc({y});
  const auto ax = sc[y].axes();
  sc[y].reorder({ax[0], ax[1], ax[4], ax[5], ax[2], ax[3]});
  vectorize_inner(sc[q]);
  return lower_op(kGraphKernelName, sc, {x, cs, r0}, {y});
}

LoweredOp max_pool_packed(const std::vector<int64_t>& x_shape, const PackedGeom& g, const Window& s,
                          int64_t per) {
  te::Tensor x = te::placeholder(x_shape, IDT::kInt8, "X");
  te::Tensor p0 = te::placeholder({1}, IDT::kInt32, "P0");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  auto where = [&](const std::vector<Expr>& i) {
    const Expr p = ir::add(ir::cast(IDT::kInt64, p0({i64(0)})), i[0]);
    const Expr bt = ir::add(ir::mul(ir::floordiv(p, i64(g.cb())), i64(g.bn)), i[3]);
    const Expr c = ir::add(ir::mul(ir::floormod(p, i64(g.cb())), i64(g.bc)), i[4]);
    return std::make_pair(bt, c);
  };
  te::Tensor acc = te::compute_reduce(
      {per, s.oh, s.ow, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const auto [bt, c] = where(i);
        const Expr iy = tap(i[1], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[2], ir::ref(rx->var), s.sw, s.pl);
        const Expr v = x({clamp(bt, 0, g.n - 1), clamp(c, 0, g.c - 1), clamp(iy, 0, s.h - 1),
                          clamp(ix, 0, s.w - 1)});
        return te::maximum(ir::select(inside(iy, ix, s.h, s.w), v, ir::imm(-128, IDT::kInt8)),
                           {ry, rx});
      },
      "Y.max");
  te::Tensor y = te::compute(
      {per, s.oh, s.ow, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const auto [bt, c] = where(i);
        return ir::select(ir::logical_and(ir::lt(bt, i64(g.n)), ir::lt(c, i64(g.c))), acc(i),
                          ir::imm(0, IDT::kInt8));
      },
      "Y");
  te::Schedule sc({y});
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[4]);
  return lower_op(kGraphKernelName, sc, {x, p0}, {y});
}

}  // namespace weft::compiler::ops::cpu
