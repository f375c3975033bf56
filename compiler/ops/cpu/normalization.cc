// The CPU normalization kernels; see normalization.h.
#include "compiler/ops/cpu/normalization.h"

#include <vector>

#include "compiler/ir/intrinsics.h"
#include "compiler/ops/cpu/schedules.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;
using I = ir::Intrinsic;

namespace {

Expr fdiv(Expr a, Expr b) { return ir::float_math(I::kFDiv, std::move(a), std::move(b)); }

}  // namespace

LoweredOp softmax_f32(int64_t outer, int64_t n, int64_t inner) {
  te::Tensor xt = te::placeholder({outer, n, inner}, IDT::kFloat32, "X");
  const te::IterVar rm = te::reduce_axis(n, "k");
  te::Tensor mx = te::compute_reduce(
      {outer, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return te::maximum(xt({i[0], ir::ref(rm->var), i[1]}), {rm});
      },
      "M");
  te::Tensor ex = te::compute(
      {outer, n, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return ir::float_math(I::kExp, ir::sub(xt(i), mx({i[0], i[2]})));
      },
      "E");
  const te::IterVar rs = te::reduce_axis(n, "s");
  te::Tensor sum = te::compute_reduce(
      {outer, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return te::sum(ex({i[0], ir::ref(rs->var), i[1]}), {rs}); },
      "S");
  te::Tensor yt = te::compute(
      {outer, n, inner}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return fdiv(ex(i), sum({i[0], i[2]})); }, "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt}, {yt});
}

LoweredOp layer_norm_f32(int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n) {
  te::Tensor xt = te::placeholder({rows, len}, IDT::kFloat32, "X");
  te::Tensor st = te::placeholder({scale_n}, IDT::kFloat32, "Scale");
  te::Tensor bt = te::placeholder({bias_n ? bias_n : 1}, IDT::kFloat32, "Bias");
  const Expr flen = ir::fimm(double(len));
  const te::IterVar rm = te::reduce_axis(len, "k");
  te::Tensor sum = te::compute_reduce(
      {rows}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return te::sum(xt({i[0], ir::ref(rm->var)}), {rm}); },
      "Sum");
  te::Tensor mean = te::compute(
      {rows}, IDT::kFloat32, [&](const std::vector<Expr>& i) { return fdiv(sum(i), flen); },
      "Mean");
  const te::IterVar rv = te::reduce_axis(len, "v");
  te::Tensor sq = te::compute_reduce(
      {rows}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        const Expr d = ir::sub(xt({i[0], ir::ref(rv->var)}), mean(i));
        return te::sum(ir::mul(d, d), {rv});
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
  std::vector<te::Tensor> ins = {xt, st};
  if (bias_n) ins.push_back(bt);
  return lower_op(kGraphKernelName, sc, ins, {yt});
}

}  // namespace weft::compiler::ops::cpu
