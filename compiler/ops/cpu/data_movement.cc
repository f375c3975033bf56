// The CPU data-movement and reduction kernels; see data_movement.h.
#include "compiler/ops/cpu/data_movement.h"

#include "compiler/ir/intrinsics.h"
#include "compiler/ops/cpu/schedules.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;

namespace {

Expr i64(int64_t v) { return ir::imm(v, IDT::kInt64); }

}  // namespace

LoweredOp transpose_f32(const std::vector<int64_t>& xs, const std::vector<int64_t>& perm) {
  std::vector<int64_t> ys(xs.size());
  for (size_t d = 0; d < xs.size(); ++d) ys[d] = xs[static_cast<size_t>(perm[d])];
  te::Tensor xt = te::placeholder(xs, IDT::kFloat32, "X");
  te::Tensor yt = te::compute(
      ys, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> src(xs.size());
        for (size_t d = 0; d < xs.size(); ++d) src[static_cast<size_t>(perm[d])] = i[d];
        return xt(src);
      },
      "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp slice_f32(int64_t outer, int64_t dim, int64_t inner, int64_t begin, int64_t count,
                    int64_t step) {
  te::Tensor xt = te::placeholder({outer, dim, inner}, IDT::kFloat32, "X");
  te::Tensor yt = te::compute(
      {outer, count, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return xt({i[0], ir::add(ir::mul(i[1], i64(step)), i64(begin)), i[2]});
      },
      "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp reduce_mean_f32(int64_t outer, int64_t n, int64_t inner) {
  te::Tensor xt = te::placeholder({outer, n, inner}, IDT::kFloat32, "X");
  const te::IterVar r = te::reduce_axis(n, "k");
  te::Tensor sum = te::compute_reduce(
      {outer, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return te::sum(xt({i[0], ir::ref(r->var), i[1]}), {r});
      },
      "S");
  te::Tensor yt = te::compute(
      {outer, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return ir::float_math(ir::Intrinsic::kFDiv, sum(i), ir::fimm(double(n)));
      },
      "Y");
  te::Schedule sc({yt});
  // With an inner axis (a mean over positions of channel blocks, [blocks, plane, 16]), the
  // reduction runs outside a vector of it: memory in order, each sum still in k's order.
  schedule_window(sc[sum]);
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp resize_axis_f32(int64_t outer, int64_t li, int64_t lo, int64_t inner) {
  te::Tensor xt = te::placeholder({outer, li, inner}, IDT::kFloat32, "X");
  te::Tensor lot = te::placeholder({lo}, IDT::kInt32, "Lo");
  te::Tensor hit = te::placeholder({lo}, IDT::kInt32, "Hi");
  te::Tensor wt = te::placeholder({lo}, IDT::kFloat32, "W");
  te::Tensor yt = te::compute(
      {outer, lo, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        const Expr w1 = wt({i[1]});
        const Expr w0 = ir::sub(ir::fimm(1.0), w1);
        const Expr p0 = xt({i[0], ir::cast(IDT::kInt64, lot({i[1]})), i[2]});
        const Expr p1 = xt({i[0], ir::cast(IDT::kInt64, hit({i[1]})), i[2]});
        return ir::add(ir::mul(w0, p0), ir::mul(w1, p1));
      },
      "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt, lot, hit, wt}, {yt});
}

}  // namespace weft::compiler::ops::cpu
