// The CPU normalization kernels; see normalization.h.
#include "compiler/ops/cpu/normalization.h"

#include <functional>
#include <limits>
#include <tuple>
#include <vector>

#include "compiler/ir/intrinsics.h"
#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/float_eltwise.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;
using I = ir::Intrinsic;

namespace {

Expr fdiv(Expr a, Expr b) { return ir::float_math(I::kFDiv, std::move(a), std::move(b)); }

}  // namespace

LoweredOp softmax_f32(int64_t outer, int64_t n, int64_t inner) {
  // Along the last axis (inner = 1: attention's rows) the tensors are [outer, n] and each
  // row's steps are computed at the row, vectorized along it: the max and the sum's
  // kRowSumLanes partials (float_eltwise.h) as vectors of lanes over the row's whole pieces,
  // the last n % L elements added to their partials after them; the exponentials and the
  // quotients along the row. Otherwise the quotients are vectorized along inner. The max may
  // be taken in any order: where that could differ (a NaN in the row) every output is NaN.
  constexpr int64_t L = kRowSumLanes;
  const bool rows = inner == 1;
  const int64_t whole = n / L, tail = n % L;
  auto shape = [&](int64_t mid) {
    return rows ? std::vector<int64_t>{outer, mid} : std::vector<int64_t>{outer, mid, inner};
  };
  // Element k of the row of reduced index r ({row} or {row, inner index}).
  auto at = [&](const std::vector<Expr>& r, const Expr& k) {
    return rows ? std::vector<Expr>{r[0], k} : std::vector<Expr>{r[0], k, r[1]};
  };
  auto row_of = [&](const std::vector<Expr>& i) {  // the reduced index of element i
    return rows ? std::vector<Expr>{i[0]} : std::vector<Expr>{i[0], i[2]};
  };
  const std::vector<int64_t> reduced =
      rows ? std::vector<int64_t>{outer} : std::vector<int64_t>{outer, inner};
  te::Tensor xt = te::placeholder(shape(n), IDT::kFloat32, "X");
  // Per lane of a [.., L, ..] stage (index i), the reduction over the whole pieces of t's row.
  auto lanes = [&](const te::Tensor& t, bool max, const char* name) {
    const te::IterVar q = te::reduce_axis(whole, "q");
    return te::compute_reduce(
        shape(L), IDT::kFloat32,
        [&](const std::vector<Expr>& i) {
          const Expr k = ir::add(ir::mul(ir::ref(q->var), ir::imm(L)), i[1]);
          const Expr v = t(at(row_of(i), k));
          return max ? te::maximum(v, {q}) : te::sum(v, {q});
        },
        name);
  };
  // Partial j of a row (reduced index r): lane j of the whole pieces (none: `none`), then the
  // tail's element whole * L + j where there is one.
  auto partial = [&](const te::Tensor& ls, const te::Tensor& t, const std::vector<Expr>& r,
                     int64_t j, Expr none, bool max) {
    Expr p = whole > 0 ? ls(at(r, ir::imm(j))) : std::move(none);
    if (j >= tail) return p;
    const Expr e = t(at(r, ir::imm(whole * L + j)));
    return max ? ir::max(p, e) : ir::add(p, e);
  };
  te::Tensor mlanes = whole > 0 ? lanes(xt, true, "M.lanes") : te::Tensor();
  te::Tensor mx = te::compute(
      reduced, IDT::kFloat32,
      [&](const std::vector<Expr>& r) {
        Expr m = partial(mlanes, xt, r, 0, xt(at(r, ir::imm(0))), true);
        for (int64_t j = 1; j < L; ++j)
          m = ir::max(m, partial(mlanes, xt, r, j, xt(at(r, ir::imm(0))), true));
        return m;
      },
      "M");
  te::Tensor ex = te::compute(
      shape(n), IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return ir::float_math(I::kExp, ir::sub(xt(i), mx(row_of(i))));
      },
      "E");
  te::Tensor slanes = whole > 0 ? lanes(ex, false, "S.lanes") : te::Tensor();
  te::Tensor sum = te::compute(
      reduced, IDT::kFloat32,
      [&](const std::vector<Expr>& r) {
        Expr p[L];
        for (int64_t j = 0; j < L; ++j) p[j] = partial(slanes, ex, r, j, ir::fimm(0.0), false);
        return row_sum_total(p, [](const Expr& a, const Expr& b) { return ir::add(a, b); });
      },
      "S");
  te::Tensor yt = te::compute(
      shape(n), IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return fdiv(ex(i), sum(row_of(i))); }, "Y");
  te::Schedule sc({yt});
  if (rows) {
    te::Stage& sy = sc[yt];
    const te::IterVar row = sy.axes()[0];
    auto along = [&](te::Stage& st) {  // the row's elements in vectors of L, the last guarded
      if (n > L) {
        auto [ko, ki] = st.split(st.axes()[1], L);
        st.set_kind(ki, ir::ForKind::kVectorized);
      }
    };
    along(sy);
    for (const te::Tensor& t : {mlanes, mx, ex, slanes, sum}) {
      if (t.get() == nullptr) continue;
      sc.set_scope(t, ir::Scope::kLocal);
      sc[t].compute_at(sy, row);
    }
    along(sc[ex]);
    for (const te::Tensor& t : {mlanes, slanes}) {  // pieces outside, the lanes a vector
      if (t.get() == nullptr) continue;
      te::Stage& st = sc[t];
      st.reorder({st.axes()[0], st.reduce_axes()[0], st.axes()[1]});
      st.set_kind(st.axes()[1], ir::ForKind::kVectorized);
    }
  } else {
    vectorize_inner(sc[yt]);
  }
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp layer_norm_f32(int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n) {
  // Each row's steps are computed at the row: its two sums in kRowSumLanes partials
  // (float_eltwise.h) as vectors of lanes over the row's whole pieces (the last len % L terms
  // added to their partials after them), then the normalized row vectorized along it.
  constexpr int64_t L = kRowSumLanes;
  const int64_t whole = len / L, tail = len % L;
  te::Tensor xt = te::placeholder({rows, len}, IDT::kFloat32, "X");
  te::Tensor st = te::placeholder({scale_n}, IDT::kFloat32, "Scale");
  te::Tensor bt = te::placeholder({bias_n ? bias_n : 1}, IDT::kFloat32, "Bias");
  const Expr flen = ir::fimm(double(len));
  // The row sum of term(row, k): its lanes stage (none when the row is shorter than L) and
  // its total.
  auto row_sum = [&](const std::function<Expr(const Expr&, const Expr&)>& term,
                     const std::string& name) {
    te::Tensor lanes;
    if (whole > 0) {
      const te::IterVar q = te::reduce_axis(whole, "q");
      lanes = te::compute_reduce(
          {rows, L}, IDT::kFloat32,
          [&](const std::vector<Expr>& i) {
            return te::sum(term(i[0], ir::add(ir::mul(ir::ref(q->var), ir::imm(L)), i[1])), {q});
          },
          name + ".lanes");
    }
    te::Tensor total = te::compute(
        {rows}, IDT::kFloat32,
        [&](const std::vector<Expr>& r) {
          Expr p[L];
          for (int64_t j = 0; j < L; ++j) {
            p[j] = whole > 0 ? lanes({r[0], ir::imm(j)}) : ir::fimm(0.0);
            if (j < tail) p[j] = ir::add(p[j], term(r[0], ir::imm(whole * L + j)));
          }
          return row_sum_total(p, [](const Expr& a, const Expr& b) { return ir::add(a, b); });
        },
        name);
    return std::make_pair(lanes, total);
  };
  te::Tensor sum_lanes, sum, sq_lanes, sq;
  std::tie(sum_lanes, sum) =
      row_sum([&](const Expr& r, const Expr& k) { return xt({r, k}); }, "Sum");
  te::Tensor mean = te::compute(
      {rows}, IDT::kFloat32, [&](const std::vector<Expr>& i) { return fdiv(sum(i), flen); },
      "Mean");
  std::tie(sq_lanes, sq) = row_sum(
      [&](const Expr& r, const Expr& k) {
        const Expr d = ir::sub(xt({r, k}), mean({r}));
        return ir::mul(d, d);
      },
      "SqSum");
  te::Tensor inv = te::compute(
      {rows}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return fdiv(ir::fimm(1.0),
                    ir::float_math(I::kSqrt, ir::add(fdiv(sq(i), flen), ir::fimm(eps))));
      },
      "Inv");
  auto at = [](int64_t count, const Expr& i) {
    return count == 1 ? ir::imm(0) : ir::floormod(i, ir::imm(count));
  };
  te::Tensor yt = te::compute(
      {rows, len}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        Expr v = ir::mul(ir::mul(ir::sub(xt(i), mean({i[0]})), inv({i[0]})),
                         st({at(scale_n, i[1])}));
        return bias_n ? ir::add(v, bt({at(bias_n, i[1])})) : v;
      },
      "Y");
  te::Schedule sc({yt});
  te::Stage& sy = sc[yt];
  const te::IterVar row = sy.axes()[0];
  if (len > L) {
    auto [ko, ki] = sy.split(sy.axes()[1], L);
    sy.set_kind(ki, ir::ForKind::kVectorized);
  }
  for (const te::Tensor& t : {sum_lanes, sum, mean, sq_lanes, sq, inv}) {
    if (t.get() == nullptr) continue;
    sc.set_scope(t, ir::Scope::kLocal);
    sc[t].compute_at(sy, row);
  }
  for (const te::Tensor& t : {sum_lanes, sq_lanes}) {  // pieces outside, the lanes a vector
    if (t.get() == nullptr) continue;
    te::Stage& sl = sc[t];
    sl.reorder({sl.axes()[0], sl.reduce_axes()[0], sl.axes()[1]});
    sl.set_kind(sl.axes()[1], ir::ForKind::kVectorized);
  }
  std::vector<te::Tensor> ins = {xt, st};
  if (bias_n) ins.push_back(bt);
  return lower_op(kGraphKernelName, sc, ins, {yt});
}

}  // namespace weft::compiler::ops::cpu
