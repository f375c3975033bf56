// The GPU element-wise and epilogue operators; see elementwise.h.
#include "compiler/ops/gpu/elementwise.h"

#include "compiler/ops/gpu/flat.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::gpu {

using ir::Expr;

void check_nchw(const Nchw& s, const char* op) {
  if (s.n <= 0 || s.c <= 0 || s.h <= 0 || s.w <= 0) {
    throw UserError(std::string(op) + ": every dimension of the NCHW shape must be positive");
  }
}

LoweredOp relu(const Nchw& shape, DType dtype) {
  check_nchw(shape, "relu");
  check_dtype(dtype, "relu", {DType::kFloat32, DType::kInt8, DType::kInt32});
  te::Tensor x = te::placeholder(shape.dims(), dtype, "X");
  return flat_op("relu", {x}, shape.dims(), dtype,
                 [&](const std::vector<Expr>& i) { return ir::max(x(i), ir::imm(0, dtype)); });
}

LoweredOp add(const Nchw& shape, DType dtype, bool relu) {
  check_nchw(shape, "add");
  check_dtype(dtype, "add", {DType::kFloat32, DType::kInt8});
  te::Tensor a = te::placeholder(shape.dims(), dtype, "A");
  te::Tensor b = te::placeholder(shape.dims(), dtype, "B");
  return flat_op(relu ? "add_relu" : "add", {a, b}, shape.dims(), dtype,
                 [&](const std::vector<Expr>& i) -> Expr {
                   if (dtype == DType::kFloat32) {
                     Expr v = ir::add(a(i), b(i));
                     return relu ? ir::max(v, ir::fimm(0)) : v;
                   }
                   Expr v = ir::add(ir::cast(DType::kInt32, a(i)), ir::cast(DType::kInt32, b(i)));
                   return ir::cast(DType::kInt8, clamp(v, relu ? 0 : -128, 127));
                 });
}

LoweredOp bias_add(const Nchw& shape, bool relu) {
  check_nchw(shape, "bias_add");
  te::Tensor x = te::placeholder(shape.dims(), DType::kFloat32, "X");
  te::Tensor bias = te::placeholder({shape.c}, DType::kFloat32, "bias");
  return flat_op(relu ? "bias_relu" : "bias_add", {x, bias}, shape.dims(), DType::kFloat32,
                 [&](const std::vector<Expr>& i) {
                   Expr v = ir::add(x(i), bias({i[1]}));
                   return relu ? ir::max(v, ir::fimm(0)) : v;
                 });
}

LoweredOp requantize(const Nchw& shape, int shift, int64_t lo, int64_t hi) {
  check_nchw(shape, "requantize");
  if (shift < 0 || shift > 31) throw UserError("requantize: shift must be in 0..31");
  if (lo < -128 || hi > 127 || lo > hi) throw UserError("requantize: clip range outside int8");
  te::Tensor x = te::placeholder(shape.dims(), DType::kInt32, "X");
  te::Tensor bias = te::placeholder({shape.c}, DType::kInt32, "bias");
  return flat_op("requantize", {x, bias}, shape.dims(), DType::kInt8,
                 [&](const std::vector<Expr>& i) {
                   Expr v = ir::add(ir::shr(x(i), ir::imm(shift, DType::kInt32)), bias({i[1]}));
                   return ir::cast(DType::kInt8, clamp(v, lo, hi));
                 });
}

}  // namespace weft::compiler::ops::gpu
