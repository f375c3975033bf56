// The GPU pooling operators; see pool.h.
#include "compiler/ops/gpu/pool.h"

#include "compiler/ops/gpu/flat.h"
#include "compiler/ir/intrinsics.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/int8_ir.h"
#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::gpu {

using ir::Expr;

namespace {

// The k x k window taps of output (oh, ow): (y, x, inside) for each tap.
struct Tap {
  Expr y, x, inside;
};
std::vector<Tap> window(const std::vector<Expr>& i, int64_t k, int64_t stride, int64_t pad,
                        const Nchw& s) {
  std::vector<Tap> taps;
  for (int64_t dy = 0; dy < k; ++dy)
    for (int64_t dx = 0; dx < k; ++dx) {
      Expr y = ir::add(ir::mul(i[2], ir::imm(stride)), ir::imm(dy - pad));
      Expr x = ir::add(ir::mul(i[3], ir::imm(stride)), ir::imm(dx - pad));
      Expr in = inside(y, x, s.h, s.w);
      taps.push_back({clamp(y, 0, s.h - 1), clamp(x, 0, s.w - 1), pad > 0 ? in : nullptr});
    }
  return taps;
}

void check_pool(const Nchw& s, int64_t k, int64_t stride, int64_t pad, const char* op) {
  check_nchw(s, op);
  if (k <= 0 || stride <= 0 || pad < 0 || pad >= k || s.h + 2 * pad < k || s.w + 2 * pad < k) {
    throw UserError(std::string(op) + ": window " + std::to_string(k) + " stride " +
                    std::to_string(stride) + " pad " + std::to_string(pad) +
                    " does not fit the input " + std::to_string(s.h) + "x" + std::to_string(s.w) +
                    " (pad must be below the window)");
  }
}

}  // namespace

LoweredOp max_pool2d(const Nchw& s, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_pool(s, k, stride, pad, "max_pool2d");
  check_dtype(dtype, "max_pool2d", {DType::kFloat32, DType::kInt8});
  const int64_t oh = (s.h + 2 * pad - k) / stride + 1, ow = (s.w + 2 * pad - k) / stride + 1;
  te::Tensor x = te::placeholder(s.dims(), dtype, "X");
  const Expr lowest = dtype == DType::kFloat32 ? ir::fimm(-3.4e38) : ir::imm(-128, dtype);
  return flat_op("max_pool2d", {x}, {s.n, s.c, oh, ow}, dtype, [&](const std::vector<Expr>& i) {
    Expr m;
    for (const Tap& t : window(i, k, stride, pad, s)) {
      Expr v = x({i[0], i[1], t.y, t.x});
      if (t.inside) v = ir::select(t.inside, v, lowest);
      m = m ? ir::max(m, v) : v;
    }
    return m;
  });
}

LoweredOp avg_pool2d(const Nchw& s, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_pool(s, k, stride, pad, "avg_pool2d");
  check_dtype(dtype, "avg_pool2d", {DType::kFloat32, DType::kInt8});
  const int64_t oh = (s.h + 2 * pad - k) / stride + 1, ow = (s.w + 2 * pad - k) / stride + 1;
  te::Tensor x = te::placeholder(s.dims(), dtype, "X");
  const bool f = dtype == DType::kFloat32;
  const DType acc = f ? DType::kFloat32 : DType::kInt32;
  return flat_op("avg_pool2d", {x}, {s.n, s.c, oh, ow}, dtype, [&](const std::vector<Expr>& i) {
    Expr sum, count = ir::imm(0, DType::kInt32);
    for (const Tap& t : window(i, k, stride, pad, s)) {
      Expr v = ir::cast(acc, x({i[0], i[1], t.y, t.x}));
      Expr one = ir::imm(1, DType::kInt32);
      if (t.inside) {
        v = ir::select(t.inside, v, ir::imm(0, acc));
        one = ir::select(t.inside, one, ir::imm(0, DType::kInt32));
      }
      sum = sum ? ir::add(sum, v) : v;
      count = ir::add(count, one);
    }
    if (f) {
      return ir::mul(sum, ir::call(DType::kFloat32, ir::Intrinsic::kRcp,
                                   {ir::cast(DType::kFloat32, count)}));
    }
    return ir::cast(DType::kInt8, round_div(sum, count));  // rounded half up
  });
}

LoweredOp global_avg_pool(const Nchw& s, DType dtype) {
  check_nchw(s, "global_avg_pool");
  check_dtype(dtype, "global_avg_pool", {DType::kFloat32, DType::kInt8});
  const bool f = dtype == DType::kFloat32;
  const DType acc = f ? DType::kFloat32 : DType::kInt32;
  const int64_t hw = s.h * s.w;
  te::Tensor x = te::placeholder(s.dims(), dtype, "X");
  const te::IterVar ry = te::reduce_axis(s.h, "y"), rx = te::reduce_axis(s.w, "x");
  te::Tensor sum = te::compute_reduce(
      {s.n, s.c}, acc,
      [&](const std::vector<Expr>& i) {
        return te::sum(ir::cast(acc, x({i[0], i[1], ir::ref(ry->var), ir::ref(rx->var)})),
                       {ry, rx});
      },
      "sum");
  te::Tensor y = te::compute(
      {s.n, s.c}, dtype,
      [&](const std::vector<Expr>& i) -> Expr {
        if (f) return ir::mul(sum(i), ir::fimm(1.0 / double(hw)));
        return ir::cast(DType::kInt8,
                        ir::floordiv(ir::add(sum(i), ir::imm(hw / 2, acc)), ir::imm(hw, acc)));
      },
      "global_avg_pool");
  te::Schedule sch({y});
  schedule_flat(sch, sum);
  schedule_flat(sch, y);
  return lower_op("global_avg_pool", sch, {x}, {y}, double(s.elements()), "elementwise");
}

}  // namespace weft::compiler::ops::gpu
