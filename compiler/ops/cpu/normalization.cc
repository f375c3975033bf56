// The CPU normalization kernels; see normalization.h.
#include "compiler/ops/cpu/normalization.h"

#include <functional>
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

constexpr int64_t L = kRowSumLanes;

// The term k of the row of reduced index r (an index of the reduced shape).
using RowTerm = std::function<Expr(const std::vector<Expr>& r, const Expr& k)>;

// A reduction along rows of n terms in kRowSumLanes partials (float_eltwise.h): `lanes`
// [reduced[0], L, reduced[1:]] reduces each lane over the row's whole pieces (none when the
// row is shorter than L); `total` [reduced] adds the last n % L terms to their partials after
// them and combines the partials: pairwise for a sum, in order for a max (whose order does
// not matter to a softmax: where it could, a NaN in the row, every output is NaN).
struct RowReduction {
  te::Tensor lanes, total;
};
RowReduction row_reduction(const std::vector<int64_t>& reduced, int64_t n, bool max,
                           const RowTerm& term, const std::string& name) {
  const int64_t whole = n / L, tail = n % L;
  auto row_of = [](const std::vector<Expr>& i) {  // a lanes index without its lane
    std::vector<Expr> r{i[0]};
    r.insert(r.end(), i.begin() + 2, i.end());
    return r;
  };
  RowReduction out;
  if (whole > 0) {
    std::vector<int64_t> shape{reduced[0], L};
    shape.insert(shape.end(), reduced.begin() + 1, reduced.end());
    const te::IterVar q = te::reduce_axis(whole, "q");
    out.lanes = te::compute_reduce(
        shape, IDT::kFloat32,
        [&](const std::vector<Expr>& i) {
          const Expr v = term(row_of(i), ir::add(ir::mul(ir::ref(q->var), ir::imm(L)), i[1]));
          return max ? te::maximum(v, {q}) : te::sum(v, {q});
        },
        name + ".lanes");
  }
  out.total = te::compute(
      reduced, IDT::kFloat32,
      [&](const std::vector<Expr>& r) {
        Expr p[L];
        for (int64_t j = 0; j < L; ++j) {
          std::vector<Expr> li{r[0], ir::imm(j)};
          li.insert(li.end(), r.begin() + 1, r.end());
          // A max without whole pieces starts from the row's first term, a sum from 0.
          p[j] = whole > 0 ? out.lanes(li) : max ? term(r, ir::imm(0)) : ir::fimm(0.0);
          if (j >= tail) continue;
          const Expr e = term(r, ir::imm(whole * L + j));
          p[j] = max ? ir::max(p[j], e) : ir::add(p[j], e);
        }
        if (!max)
          return row_sum_total(p, [](const Expr& a, const Expr& b) { return ir::add(a, b); });
        Expr m = p[0];
        for (int64_t j = 1; j < L; ++j) m = ir::max(m, p[j]);
        return m;
      },
      name);
  return out;
}

// Rows of a [rows, n] output `y` in vectors of L along the row (the last guarded), and what
// each row needs computed at the row in local buffers: its reductions (their pieces outside
// and their lanes a vector), its `per_row` values, and its `whole_rows` stages ([rows, n],
// vectorized as y).
void schedule_rows(te::Schedule& sc, const te::Tensor& y, int64_t n,
                   const std::vector<RowReduction>& reductions,
                   const std::vector<te::Tensor>& per_row,
                   const std::vector<te::Tensor>& whole_rows) {
  auto along = [&](te::Stage& st) {
    if (n > L) {
      auto [ko, ki] = st.split(st.axes()[1], L);
      st.set_kind(ki, ir::ForKind::kVectorized);
    }
  };
  te::Stage& sy = sc[y];
  const te::IterVar row = sy.axes()[0];
  along(sy);
  auto local_at_row = [&](const te::Tensor& t) {
    sc.set_scope(t, ir::Scope::kLocal);
    sc[t].compute_at(sy, row);
  };
  for (const RowReduction& r : reductions) {
    local_at_row(r.total);
    if (r.lanes.get() == nullptr) continue;
    local_at_row(r.lanes);
    te::Stage& sl = sc[r.lanes];
    sl.reorder({sl.axes()[0], sl.reduce_axes()[0], sl.axes()[1]});
    sl.set_kind(sl.axes()[1], ir::ForKind::kVectorized);
  }
  for (const te::Tensor& t : per_row) local_at_row(t);
  for (const te::Tensor& t : whole_rows) {
    local_at_row(t);
    along(sc[t]);
  }
}

}  // namespace

LoweredOp softmax_f32(int64_t outer, int64_t n, int64_t inner) {
  // Along the last axis (inner = 1: attention's rows) the tensors are [outer, n] and each
  // row's steps are computed at the row (schedule_rows): its max and its sum in partials,
  // its exponentials and quotients vectorized along it. Otherwise the quotients are
  // vectorized along inner.
  const bool rows = inner == 1;
  const std::vector<int64_t> xs =
      rows ? std::vector<int64_t>{outer, n} : std::vector<int64_t>{outer, n, inner};
  const std::vector<int64_t> reduced =
      rows ? std::vector<int64_t>{outer} : std::vector<int64_t>{outer, inner};
  // Element k of the row of reduced index r, and the reduced index of element i.
  auto at = [&](const std::vector<Expr>& r, const Expr& k) {
    return rows ? std::vector<Expr>{r[0], k} : std::vector<Expr>{r[0], k, r[1]};
  };
  auto row_of = [&](const std::vector<Expr>& i) {
    return rows ? std::vector<Expr>{i[0]} : std::vector<Expr>{i[0], i[2]};
  };
  te::Tensor xt = te::placeholder(xs, IDT::kFloat32, "X");
  const RowReduction mx = row_reduction(
      reduced, n, true, [&](const std::vector<Expr>& r, const Expr& k) { return xt(at(r, k)); },
      "M");
  te::Tensor ex = te::compute(
      xs, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return ir::float_math(I::kExp, ir::sub(xt(i), mx.total(row_of(i))));
      },
      "E");
  const RowReduction sum = row_reduction(
      reduced, n, false, [&](const std::vector<Expr>& r, const Expr& k) { return ex(at(r, k)); },
      "S");
  te::Tensor yt = te::compute(
      xs, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return fdiv(ex(i), sum.total(row_of(i))); }, "Y");
  te::Schedule sc({yt});
  if (rows) {
    schedule_rows(sc, yt, n, {mx, sum}, {}, {ex});
  } else {
    vectorize_inner(sc[yt]);
  }
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp layer_norm_f32(int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n) {
  // Each row's steps are computed at the row (schedule_rows): its two sums in partials, then
  // the normalized row vectorized along it.
  te::Tensor xt = te::placeholder({rows, len}, IDT::kFloat32, "X");
  te::Tensor st = te::placeholder({scale_n}, IDT::kFloat32, "Scale");
  te::Tensor bt = te::placeholder({bias_n ? bias_n : 1}, IDT::kFloat32, "Bias");
  const Expr flen = ir::fimm(double(len));
  const RowReduction sum = row_reduction(
      {rows}, len, false,
      [&](const std::vector<Expr>& r, const Expr& k) {
        return xt({r[0], k});
      },
      "Sum");
  te::Tensor mean = te::compute(
      {rows}, IDT::kFloat32, [&](const std::vector<Expr>& i) { return fdiv(sum.total(i), flen); },
      "Mean");
  const RowReduction sq = row_reduction(
      {rows}, len, false,
      [&](const std::vector<Expr>& r, const Expr& k) {
        const Expr d = ir::sub(xt({r[0], k}), mean(r));
        return ir::mul(d, d);
      },
      "SqSum");
  te::Tensor inv = te::compute(
      {rows}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return fdiv(ir::fimm(1.0),
                    ir::float_math(I::kSqrt, ir::add(fdiv(sq.total(i), flen), ir::fimm(eps))));
      },
      "Inv");
  auto at = [](int64_t count, const Expr& i) {
    return count == 1 ? ir::imm(0) : ir::floormod(i, ir::imm(count));
  };
  te::Tensor yt = te::compute(
      {rows, len}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        Expr v =
            ir::mul(ir::mul(ir::sub(xt(i), mean({i[0]})), inv({i[0]})), st({at(scale_n, i[1])}));
        return bias_n ? ir::add(v, bt({at(bias_n, i[1])})) : v;
      },
      "Y");
  te::Schedule sc({yt});
  schedule_rows(sc, yt, len, {sum, sq}, {mean, inv}, {});
  std::vector<te::Tensor> ins = {xt, st};
  if (bias_n) ins.push_back(bt);
  return lower_op(kGraphKernelName, sc, ins, {yt});
}

}  // namespace weft::compiler::ops::cpu
