// The CPU operators on channel-blocked activations; see blocked_ops.h.
#include "compiler/ops/cpu/blocked_ops.h"

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/op_args.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;

namespace {
void check_blocked(const Blocked& b, const char* op) {
  check_positive(op, "batch", b.n);
  check_positive(op, "channel blocks", b.cb);
  check_positive(op, "height", b.h);
  check_positive(op, "width", b.w);
  check_positive(op, "channel block", b.c);
}
Expr zero(DType t) { return ir::imm(0, t); }
}  // namespace

LoweredOp relu(const Blocked& b, DType dtype) {
  check_dtype(dtype, "relu", {DType::kFloat32, DType::kInt8});
  check_blocked(b, "relu");
  te::Tensor x = te::placeholder(b.dims(), dtype, "X");
  te::Tensor y = te::compute(
      b.dims(), dtype, [&](const std::vector<Expr>& i) { return ir::max(x(i), zero(dtype)); }, "Y");
  te::Schedule s({y});
  schedule_blocked(s[y], 16);
  return lower_op(std::string("relu_") + ir::dtype_name(dtype), s, {x}, {y},
                  static_cast<double>(b.elements()));
}

LoweredOp add_relu(const Blocked& b, DType dtype) {
  check_dtype(dtype, "add_relu", {DType::kFloat32, DType::kInt8});
  check_blocked(b, "add_relu");
  te::Tensor x = te::placeholder(b.dims(), dtype, "A");
  te::Tensor z = te::placeholder(b.dims(), dtype, "B");
  te::Tensor y = te::compute(
      b.dims(), dtype,
      [&](const std::vector<Expr>& i) {
        if (dtype == DType::kFloat32) return ir::max(ir::add(x(i), z(i)), zero(dtype));
        Expr sum = ir::add(ir::cast(DType::kInt32, x(i)), ir::cast(DType::kInt32, z(i)));
        return clamp(sum, ir::imm(0, DType::kInt32), ir::imm(127, DType::kInt32));
      },
      "Y");
  te::Schedule s({y});
  schedule_blocked(s[y], 16);
  return lower_op(std::string("add_relu_") + ir::dtype_name(dtype), s, {x, z}, {y},
                  2.0 * static_cast<double>(b.elements()));
}

LoweredOp bias_relu(const Blocked& b) {
  check_blocked(b, "bias_relu");
  te::Tensor x = te::placeholder(b.dims(), DType::kFloat32, "X");
  te::Tensor bias = te::placeholder({b.cb, b.c}, DType::kFloat32, "bias");
  te::Tensor y = te::compute(
      b.dims(), DType::kFloat32,
      [&](const std::vector<Expr>& i) {
        return ir::max(ir::add(x(i), bias({i[1], i[4]})), zero(DType::kFloat32));
      },
      "Y");
  te::Schedule s({y});
  schedule_blocked(s[y], 16);
  return lower_op("bias_relu_float32", s, {x, bias}, {y}, 2.0 * static_cast<double>(b.elements()));
}

LoweredOp requantize(const Blocked& b, int shift) {
  check_blocked(b, "requantize");
  if (shift < 0 || shift > 31) {
    throw UserError("requantize: shift " + std::to_string(shift) + " is outside [0, 31]");
  }
  te::Tensor x = te::placeholder(b.dims(), DType::kInt32, "X");
  te::Tensor bias = te::placeholder({b.cb, b.c}, DType::kInt32, "bias");
  te::Tensor y = te::compute(
      b.dims(), DType::kInt8,
      [&](const std::vector<Expr>& i) {
        Expr v = ir::add(ir::shr(x(i), ir::imm(shift, DType::kInt32)), bias({i[1], i[4]}));
        return clamp(v, ir::imm(0, DType::kInt32), ir::imm(127, DType::kInt32));
      },
      "Y");
  te::Schedule s({y});
  schedule_blocked(s[y], 16);
  return lower_op("requantize_int8", s, {x, bias}, {y}, 3.0 * static_cast<double>(b.elements()));
}

LoweredOp max_pool2d(const Blocked& b, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_dtype(dtype, "max_pool2d", {DType::kFloat32, DType::kInt8});
  check_blocked(b, "max_pool2d");
  check_positive("max_pool2d", "window", k);
  check_positive("max_pool2d", "stride", stride);
  if (pad < 0 || pad >= k) {
    throw UserError("max_pool2d: padding " + std::to_string(pad) + " is outside [0, window " +
                    std::to_string(k) + ")");
  }
  if (k > b.h + 2 * pad || k > b.w + 2 * pad) {
    throw UserError("max_pool2d: window " + std::to_string(k) + " is larger than the padded input");
  }
  const int64_t oh = (b.h + 2 * pad - k) / stride + 1, ow = (b.w + 2 * pad - k) / stride + 1;
  const Expr lowest = dtype == DType::kFloat32 ? ir::fimm(-3.0e38) : ir::imm(-128, dtype);
  te::Tensor x = te::placeholder(b.dims(), dtype, "X");
  te::Tensor y = te::compute(
      {b.n, b.cb, oh, ow, b.c}, dtype,
      [&](const std::vector<Expr>& i) {
        Expr best;
        for (int64_t dy = 0; dy < k; ++dy) {
          for (int64_t dx = 0; dx < k; ++dx) {
            Expr iy = ir::add(ir::mul(i[2], ir::imm(stride)), ir::imm(dy - pad));
            Expr ix = ir::add(ir::mul(i[3], ir::imm(stride)), ir::imm(dx - pad));
            Expr v = x({i[0], i[1], clamp(iy, 0, b.h - 1), clamp(ix, 0, b.w - 1), i[4]});
            if (pad > 0) {
              v = ir::select(inside(iy, ix, b.h, b.w), v, lowest);
            }
            best = best ? ir::max(best, v) : v;
          }
        }
        return best;
      },
      "Y");
  te::Schedule s({y});
  schedule_blocked(s[y], 16);
  return lower_op(std::string("max_pool2d_") + ir::dtype_name(dtype), s, {x}, {y},
                  static_cast<double>(b.n * b.cb * oh * ow * b.c * k * k));
}

LoweredOp global_avg_pool(const Blocked& b, DType dtype) {
  check_dtype(dtype, "global_avg_pool", {DType::kFloat32, DType::kInt8});
  check_blocked(b, "global_avg_pool");
  const DType acc = accumulator_of(dtype);
  const int64_t hw = b.h * b.w;
  te::Tensor x = te::placeholder(b.dims(), dtype, "X");
  const te::IterVar ry = te::reduce_axis(b.h, "ry");
  const te::IterVar rx = te::reduce_axis(b.w, "rx");
  te::Tensor sum = te::compute_reduce(
      {b.n, b.cb, b.c}, acc,
      [&](const std::vector<Expr>& i) {
        return te::sum(ir::cast(acc, x({i[0], i[1], ir::ref(ry->var), ir::ref(rx->var), i[2]})),
                       {ry, rx});
      },
      "Y.sum");
  te::Tensor y = te::compute(
      {b.n, b.cb, b.c}, dtype,
      [&](const std::vector<Expr>& i) {
        if (dtype == DType::kFloat32)
          return ir::mul(sum(i), ir::fimm(1.0 / static_cast<double>(hw)));
        return ir::floordiv(ir::add(sum(i), ir::imm(hw / 2, DType::kInt32)),
                            ir::imm(hw, DType::kInt32));
      },
      "Y");
  te::Schedule s({y});
  te::Stage& ss = s[sum];
  ss.reorder({ss.reduce_axes()[0], ss.reduce_axes()[1], ss.axes()[2]});
  ss.set_kind(ss.axes()[2], b.c <= 64 ? ForKind::kVectorized : ForKind::kSerial);
  schedule_blocked(s[y], 16);
  return lower_op(std::string("global_avg_pool_") + ir::dtype_name(dtype), s, {x}, {y},
                  static_cast<double>(b.elements()));
}

}  // namespace weft::compiler::ops::cpu
