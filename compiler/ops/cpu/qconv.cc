// The CPU fallback of int8 QConv / QDense; see qconv.h.
#include "compiler/ops/cpu/qconv.h"

#include <algorithm>

#include "compiler/ops/cpu/pool.h"
#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;
using IDT = ir::DType;

namespace {

Expr i32(int64_t v) { return ir::imm(v, IDT::kInt32); }

// The convolution's int32 sums. Padding: a zero-padded copy of the input (a workspace written
// first), so that the taps read it at affine indices (contiguous vectors at stride 1, no
// gathers).
te::Tensor conv_sums(const QConv& q, const te::Tensor& x, const te::Tensor& w) {
  const int64_t C = q.x[1], H = q.x[2], W = q.x[3];
  const int64_t KH = q.w[2], KW = q.w[3];
  const auto& st = q.strides;
  const auto& pd = q.pads;
  const auto& dl = q.dilations;
  const te::IterVar rc = te::reduce_axis(C, "rc"), ry = te::reduce_axis(KH, "ry"),
                    rx = te::reduce_axis(KW, "rx");
  Window s{};
  s.h = H, s.w = W, s.oh = q.y[2], s.ow = q.y[3], s.kh = (KH - 1) * dl[0] + 1,
  s.kw = (KW - 1) * dl[1] + 1, s.sh = st[0], s.sw = st[1], s.pt = pd[0], s.pl = pd[1];
  te::Tensor src = x;
  int64_t pt = 0, pl = 0;
  if (s.needs_guard()) {
    const int64_t ph = std::max(H + s.pt, (s.oh - 1) * s.sh + s.kh),
                  pw = std::max(W + s.pl, (s.ow - 1) * s.sw + s.kw);
    src = te::compute(
        {q.x[0], C, ph, pw}, IDT::kInt8,
        [&](const std::vector<Expr>& i) {
          const Expr iy = ir::add(i[2], ir::imm(-s.pt)), ix = ir::add(i[3], ir::imm(-s.pl));
          const Expr v = x({i[0], i[1], clamp(iy, 0, H - 1), clamp(ix, 0, W - 1)});
          return ir::select(inside(iy, ix, s.h, s.w), v, ir::imm(0, IDT::kInt8));
        },
        "X.pad");
  } else {
    pt = s.pt, pl = s.pl;
  }
  return te::compute_reduce(
      q.y, IDT::kInt32,
      [&](const std::vector<Expr>& i) {
        const Expr iy = tap(i[2], ir::mul(ir::ref(ry->var), ir::imm(dl[0])), s.sh, pt);
        const Expr ix = tap(i[3], ir::mul(ir::ref(rx->var), ir::imm(dl[1])), s.sw, pl);
        const Expr v = ir::cast(IDT::kInt32, src({i[0], ir::ref(rc->var), iy, ix}));
        const Expr wk =
            ir::cast(IDT::kInt32, w({i[1], ir::ref(rc->var), ir::ref(ry->var), ir::ref(rx->var)}));
        return te::sum(ir::mul(v, wk), {rc, ry, rx});
      },
      "Y.acc");
}

te::Tensor dense_sums(const QConv& q, const te::Tensor& x, const te::Tensor& w) {
  const te::IterVar rk = te::reduce_axis(q.x[1], "rk");
  return te::compute_reduce(
      q.y, IDT::kInt32,
      [&](const std::vector<Expr>& i) {
        return te::sum(ir::mul(ir::cast(IDT::kInt32, x({i[0], ir::ref(rk->var)})),
                               ir::cast(IDT::kInt32, w({i[1], ir::ref(rk->var)}))),
                       {rk});
      },
      "Y.acc");
}

}  // namespace

LoweredOp qconv(const QConv& q) {
  const int64_t O = q.w[0];
  te::Tensor x = te::placeholder(q.x, IDT::kInt8, "X");
  te::Tensor w = te::placeholder(q.w, IDT::kInt8, "W");
  std::vector<te::Tensor> ins = {x, w};
  te::Tensor b, r;
  if (q.bias) ins.push_back(b = te::placeholder({O}, IDT::kInt32, "bias"));
  if (q.residual) ins.push_back(r = te::placeholder(q.y, IDT::kInt8, "residual"));
  te::Tensor shifts = te::placeholder({O}, IDT::kInt32, "shifts");
  ins.push_back(shifts);
  const int ch = 1;  // the output channel axis (NCHW or [M, N])
  te::Tensor acc = q.conv ? conv_sums(q, x, w) : dense_sums(q, x, w);
  te::Tensor y = te::compute(
      q.y, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        Expr v = acc(i);
        if (q.bias) v = ir::add(v, b({i[ch]}));
        v = ir::shr(v, shifts({i[ch]}));
        if (q.residual) v = ir::add(v, ir::cast(IDT::kInt32, r(i)));
        return ir::cast(IDT::kInt8, clamp(v, i32(q.relu ? 0 : -128), i32(127)));
      },
      "Y");
  te::Schedule sc({y});
  te::Stage& a = sc[acc];
  const auto ax = a.axes();
  const auto red = a.reduce_axes();
  if (q.conv) {
    // Per output row: the row's accumulators (local), the reduction outside a vector of
    // output columns, then the epilogue over the row.
    std::vector<te::IterVar> order = {ax[0], ax[1], ax[2]};
    order.insert(order.end(), red.begin(), red.end());
    te::IterVar inner = ax[3];
    // Output columns in vectors where the taps are contiguous (stride 1); strided rows are
    // left to LLVM's loop vectorizer.
    const int64_t vw = q.strides[1] == 1 ? vector_width(ax[3]->extent, 16) : 1;
    if (vw > 1 && vw < ax[3]->extent) {
      auto [o, i] = a.split(ax[3], vw);
      order.push_back(o);
      inner = i;
    }
    order.push_back(inner);
    a.reorder(order);
    if (vw > 1) a.set_kind(inner, ForKind::kVectorized);
    sc.set_scope(acc, ir::Scope::kLocal);
    a.compute_at(sc[y], sc[y].axes()[2]);
    vectorize_inner(sc[y]);  // below the row loop the accumulators are computed at
  } else {
    // One accumulator per output, computed at the output's loop (a scalar in a register).
    sc.set_scope(acc, ir::Scope::kLocal);
    a.compute_at(sc[y], sc[y].axes()[1]);
  }
  return lower_op(kGraphKernelName, sc, ins, {y});
}

}  // namespace weft::compiler::ops::cpu
