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

// Two operands' shapes and their broadcast shape, of one rank, with size-1 output dimensions
// dropped and neighbouring dimensions merged where each operand broadcasts along both or
// along neither (at least one dimension remains).
struct Broadcast2 {
  std::vector<int64_t> a, b, out;
};
Broadcast2 merge_broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                           const std::vector<int64_t>& out) {
  const size_t r = out.size();
  auto aligned = [&](const std::vector<int64_t>& s, size_t d) {
    return d < r - s.size() ? int64_t{1} : s[d - (r - s.size())];
  };
  Broadcast2 m;
  bool prev_a = false, prev_b = false;  // whether the last kept dimension broadcasts a, b
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    const bool ba = aligned(a, d) == 1, bb = aligned(b, d) == 1;
    if (!m.out.empty() && ba == prev_a && bb == prev_b) {
      m.out.back() *= out[d];
      if (!ba) m.a.back() *= out[d];
      if (!bb) m.b.back() *= out[d];
      continue;
    }
    m.out.push_back(out[d]);
    m.a.push_back(ba ? 1 : out[d]);
    m.b.push_back(bb ? 1 : out[d]);
    prev_a = ba, prev_b = bb;
  }
  if (m.out.empty()) m = {{1}, {1}, {1}};
  return m;
}

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

LoweredOp unary_f32(int64_t count, const Unary& u) {
  return elementwise(count, {IDT::kFloat32}, IDT::kFloat32,
                     [&](const std::vector<Expr>& v) { return unary_ir(u, v[0]); });
}

LoweredOp binary_f32(BinaryFn f, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     const std::vector<int64_t>& out) {
  const Broadcast2 m = merge_broadcast(a, b, out);
  te::Tensor at = te::placeholder(m.a, IDT::kFloat32, "A");
  te::Tensor bt = te::placeholder(m.b, IDT::kFloat32, "B");
  // A broadcast dimension reads index 0.
  auto at_index = [](const std::vector<int64_t>& shape, const std::vector<Expr>& i) {
    std::vector<Expr> r;
    for (size_t d = 0; d < shape.size(); ++d) r.push_back(shape[d] == 1 ? ir::imm(0) : i[d]);
    return r;
  };
  te::Tensor yt = te::compute(
      m.out, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        return binary_ir(f, at(at_index(m.a, i)), bt(at_index(m.b, i)));
      },
      "Y");
  te::Schedule sc({yt});
  vectorize_inner(sc[yt]);
  return lower_op(kGraphKernelName, sc, {at, bt}, {yt});
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
