// The CPU pooling operators of the graph's host nodes; see pool.h.
#include "compiler/ops/cpu/pool.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/int8_ir.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;
using IDT = ir::DType;

std::string Window::str() const {
  return std::to_string(planes) + "x" + std::to_string(h) + "x" + std::to_string(w) + "->" +
         std::to_string(oh) + "x" + std::to_string(ow) + " k" + std::to_string(kh) + "x" +
         std::to_string(kw) + " s" + std::to_string(sh) + "x" + std::to_string(sw) + " p" +
         std::to_string(pt) + "," + std::to_string(pl) + "," + std::to_string(pb) + "," +
         std::to_string(pr);
}

bool Window::needs_guard() const {
  return pt > 0 || pl > 0 || (oh - 1) * sh - pt + kh > h || (ow - 1) * sw - pl + kw > w;
}

Expr tap(const Expr& o, const Expr& r, int64_t stride, int64_t pad) {
  return ir::add(ir::add(ir::mul(o, ir::imm(stride)), r), ir::imm(-pad));
}

namespace {

// The taps of output (oy, ox) that count towards an average (inside the input, or with
// count_include_pad inside the padded input).
Expr tap_count(const Expr& oy, const Expr& ox, const Window& s, bool include_pad) {
  const Expr y0 = tap(oy, ir::imm(0), s.sh, s.pt), x0 = tap(ox, ir::imm(0), s.sw, s.pl);
  const Expr ky = ir::imm(s.kh), kx = ir::imm(s.kw);
  if (include_pad)
    return ir::mul(ir::sub(ir::min(ir::add(y0, ky), ir::imm(s.h + s.pb)), y0),
                   ir::sub(ir::min(ir::add(x0, kx), ir::imm(s.w + s.pr)), x0));
  return ir::mul(ir::sub(ir::min(ir::add(y0, ky), ir::imm(s.h)), ir::max(y0, ir::imm(0))),
                 ir::sub(ir::min(ir::add(x0, kx), ir::imm(s.w)), ir::max(x0, ir::imm(0))));
}

// The window's sum of `x` in `acc_t` (zero for taps outside the input), one per output.
te::Tensor window_sum(const te::Tensor& x, const Window& s, IDT acc_t) {
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  const bool guard = s.needs_guard();
  return te::compute_reduce(
      {s.planes, s.oh, s.ow}, acc_t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = tap(i[1], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[2], ir::ref(rx->var), s.sw, s.pl);
        Expr v = x({i[0], guard ? clamp(iy, 0, s.h - 1) : iy, guard ? clamp(ix, 0, s.w - 1) : ix});
        if (x->dtype != acc_t) v = ir::cast(acc_t, v);
        const Expr zero = acc_t == IDT::kFloat32 ? ir::fimm(0.0) : ir::cast(acc_t, ir::imm(0));
        if (guard) v = ir::select(inside(iy, ix, s.h, s.w), v, zero);
        return te::sum(v, {ry, rx});
      },
      "Y.sum");
}

// Average pooling: the window's sum (a reduction computed per output, in registers), then
// y = `fin`(sum, output indices); `extra` inputs follow x.
LoweredOp avg_pool(const Window& s, const te::Tensor& x, IDT acc_t,
                   const std::vector<te::Tensor>& extra, IDT out,
                   const std::function<Expr(const Expr&, const std::vector<Expr>&)>& fin) {
  te::Tensor acc = window_sum(x, s, acc_t);
  te::Tensor y = te::compute(
      {s.planes, s.oh, s.ow}, out, [&](const std::vector<Expr>& i) { return fin(acc(i), i); }, "Y");
  te::Schedule sc({y});
  schedule_window(sc[acc]);
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[1]);
  vectorize_inner(sc[y]);
  std::vector<te::Tensor> inputs{x};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return lower_op(kGraphKernelName, sc, inputs, {y});
}

}  // namespace

// Max pooling of [planes, h, w] (int8 or float32). A tap outside the input never wins: each
// output row's input rows are first copied into a padded local buffer (lowest value outside
// the input), computed at the row loop, so the window's taps read it at affine indices; the
// taps are unrolled and LLVM's loop vectorizer takes the output columns (strided taps become
// interleaved vector loads, where clamped indices would be gathers).
LoweredOp max_pool(const Window& s, IDT t) {
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, t, "X");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  const Expr lowest = t == IDT::kFloat32 ? ir::fimm(-3.4028234663852886e38) : ir::imm(-128, t);
  const int64_t ph = std::max(s.h + s.pt, (s.oh - 1) * s.sh + s.kh),
                pw = std::max(s.w + s.pl, (s.ow - 1) * s.sw + s.kw);
  te::Tensor xp = te::compute(
      {s.planes, ph, pw}, t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(i[1], ir::imm(-s.pt)), ix = ir::add(i[2], ir::imm(-s.pl));
        const Expr v = x({i[0], clamp(iy, 0, s.h - 1), clamp(ix, 0, s.w - 1)});
        return ir::select(inside(iy, ix, s.h, s.w), v, lowest);
      },
      "X.pad");
  te::Tensor y = te::compute_reduce(
      {s.planes, s.oh, s.ow}, t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(ir::mul(i[1], ir::imm(s.sh)), ir::ref(ry->var));
        const Expr ix = ir::add(ir::mul(i[2], ir::imm(s.sw)), ir::ref(rx->var));
        return te::maximum(xp({i[0], iy, ix}), {ry, rx});
      },
      "Y");
  te::Schedule sc({y});
  te::Stage& st = sc[y];
  if (s.kh * s.kw <= 64) {
    st.set_kind(ry, ForKind::kUnrolled);
    st.set_kind(rx, ForKind::kUnrolled);
  }
  sc.set_scope(xp, ir::Scope::kLocal);
  sc[xp].compute_at(st, st.axes()[1]);
  return lower_op(kGraphKernelName, sc, {x}, {y});
}

LoweredOp avg_pool_i8(const Window& s, bool include_pad, int d) {
  // |sum| <= 128 k^2; the rounding doubles it and shifts it left by d.
  const IDT t = int_for_left_shift(std::max(d, 0) + 8 +
                                   static_cast<int>(std::ceil(std::log2(double(s.kh * s.kw)))));
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, IDT::kInt8, "X");
  return avg_pool(s, x, t, {}, IDT::kInt8, [&](const Expr& acc, const std::vector<Expr>& i) {
    const Expr c = ir::cast(t, ir::max(tap_count(i[1], i[2], s, include_pad), ir::imm(1)));
    const Expr r = d >= 0 ? round_div(ir::mul(acc, ir::imm(int64_t{1} << d, t)), c)
                          : round_div(acc, ir::mul(c, ir::imm(int64_t{1} << -d, t)));
    return sat8(r);
  });
}

LoweredOp avg_pool_f32(const Window& s) {
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, IDT::kFloat32, "X");
  te::Tensor recip = te::placeholder({s.oh, s.ow}, IDT::kFloat32, "recip");
  return avg_pool(s, x, IDT::kFloat32, {recip}, IDT::kFloat32,
                  [&](const Expr& acc, const std::vector<Expr>& i) {
                    return ir::mul(acc, recip({i[1], i[2]}));
                  });
}

LoweredOp global_avg_pool_f32(int64_t planes, int64_t hw) {
  te::Tensor xt = te::placeholder({planes, hw}, IDT::kFloat32, "X");
  const te::IterVar r = te::reduce_axis(hw, "r");
  te::Tensor acc = te::compute_reduce(
      {planes}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return te::sum(xt({i[0], ir::ref(r->var)}), {r});
      },
      "Y.sum");
  te::Tensor yt = te::compute(
      {planes}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return ir::mul(acc(i), ir::fimm(1.0 / double(hw))); }, "Y");
  te::Schedule sc({yt});
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[yt], sc[yt].axes()[0]);
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

}  // namespace weft::compiler::ops::cpu
