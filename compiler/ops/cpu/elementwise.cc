// The CPU element-wise operators of the graph's host nodes; see elementwise.h.
#include "compiler/ops/cpu/elementwise.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/int8_ir.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;

namespace {

Expr i32(int64_t v) { return ir::imm(v, IDT::kInt32); }

// A flat element-wise kernel over `count` elements: y[i] = f(x0[i], x1[i], ...).
LoweredOp elementwise(int64_t count, const std::vector<IDT>& in_types, IDT out_type,
                      const std::function<Expr(const std::vector<Expr>&)>& f) {
  std::vector<te::Tensor> ins;
  for (size_t k = 0; k < in_types.size(); ++k)
    ins.push_back(te::placeholder({count}, in_types[k], "X" + std::to_string(k)));
  te::Tensor y = te::compute(
      {count}, out_type,
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> xs;
        for (const te::Tensor& t : ins) xs.push_back(t(i));
        return f(xs);
      },
      "Y");
  te::Schedule s({y});
  vectorize_inner(s[y]);
  return lower_op(kGraphKernelName, s, ins, {y});
}

}  // namespace

LoweredOp quantize_f32(int64_t count, int e) {
  return elementwise(count, {IDT::kFloat32}, IDT::kInt8,
                     [&](const std::vector<Expr>& x) { return quantize(x[0], e); });
}

LoweredOp dequantize_i8(int64_t count, int e) {
  return elementwise(count, {IDT::kInt8}, IDT::kFloat32, [&](const std::vector<Expr>& x) {
    return ir::mul(ir::cast(IDT::kFloat32, x[0]), ir::fimm(std::ldexp(1.0, e)));
  });
}

LoweredOp clip_i8(int64_t count, int64_t lo, int64_t hi) {
  return elementwise(count, {IDT::kInt8}, IDT::kInt8, [&](const std::vector<Expr>& x) {
    return clamp(ir::cast(IDT::kInt32, x[0]), i32(lo), i32(hi));
  });
}

LoweredOp requantize_i8(int64_t count, int s) {
  return elementwise(count, {IDT::kInt8}, IDT::kInt8, [&](const std::vector<Expr>& x) {
    return sat8(shift_round(ir::cast(int_for_left_shift(-s), x[0]), s));
  });
}

LoweredOp add_i8(int64_t count, int sa, int sb) {
  const IDT t = int_for_left_shift(std::max(-sa, -sb));
  return elementwise(count, {IDT::kInt8, IDT::kInt8}, IDT::kInt8, [&](const std::vector<Expr>& x) {
    return sat8(ir::add(shift_round(ir::cast(t, x[0]), sa), shift_round(ir::cast(t, x[1]), sb)));
  });
}

LoweredOp clip_f32(int64_t count, float lo, float hi) {
  return elementwise(count, {IDT::kFloat32}, IDT::kFloat32, [&](const std::vector<Expr>& v) {
    Expr r = v[0];
    if (lo > -std::numeric_limits<float>::infinity()) r = ir::max(r, ir::fimm(lo));
    if (hi < std::numeric_limits<float>::infinity()) r = ir::min(r, ir::fimm(hi));
    return r;
  });
}

LoweredOp add_f32(int64_t count) {
  return elementwise(count, {IDT::kFloat32, IDT::kFloat32}, IDT::kFloat32,
                     [&](const std::vector<Expr>& v) { return ir::add(v[0], v[1]); });
}

LoweredOp scale_shift_f32(int64_t n, int64_t c, int64_t plane) {
  te::Tensor xt = te::placeholder({n, c, plane}, IDT::kFloat32, "X");
  te::Tensor at = te::placeholder({c}, IDT::kFloat32, "A");
  te::Tensor bt = te::placeholder({c}, IDT::kFloat32, "B");
  te::Tensor yt = te::compute(
      {n, c, plane}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return ir::add(ir::mul(xt(i), at({i[1]})), bt({i[1]})); },
      "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {xt, at, bt}, {yt});
}

}  // namespace weft::compiler::ops::cpu
