// GPU operator definitions; see ops.h. dense and conv2d are GEMM specifications (gemm.h);
// the element-wise, epilogue and pooling operators are one flat kernel each (every output
// element one thread: loops fused, split by 256, bound to blockIdx.x / threadIdx.x), except
// global average pooling (a sum kernel, then a scaling kernel).
#include "runtime/gpu/ops.h"

#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"
#include "compiler/codegen/cuda/codegen_cuda.h"
#include "runtime/gpu/gemm.h"

namespace weft::rt::gpu {

using ir::Expr;

DType parse_dtype(const std::string& name, const std::string& where) {
  if (name == "float32") return DType::kFloat32;
  if (name == "float16") return DType::kFloat16;
  if (name == "int8") return DType::kInt8;
  throw UserError(where + ": unknown dtype '" + name + "' (float32, float16 or int8)");
}

const char* gemm_path_name(GemmPath p) {
  switch (p) {
    case GemmPath::kAuto:
      return "auto";
    case GemmPath::kSimt:
      return "simt";
    case GemmPath::kTensorCore:
      return "tensor-core";
    case GemmPath::kDp4a:
      return "dp4a";
  }
  return "?";
}

GpuOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const GemmSchedule& s) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw UserError("dense: M, N and K must be positive (got " + std::to_string(m) + ", " +
                    std::to_string(n) + ", " + std::to_string(k) + ")");
  }
  te::Tensor a = te::placeholder({m, k}, dtype, "A");
  te::Tensor w = te::placeholder({n, k}, dtype, "W");
  GemmSpec spec;
  spec.name = "dense";
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.in = dtype;
  spec.a = [a](const Expr& i, const Expr& r) { return a({i, r}); };
  spec.b = [w](const Expr& j, const Expr& r) { return w({j, r}); };
  spec.inputs = {a, w};
  spec.ops = 2.0 * double(m) * double(n) * double(k);
  return gemm(spec, s);
}

GpuOp conv2d(const Conv2dShape& c, DType dtype, const GemmSchedule& s) {
  for (auto [what, v] : {std::pair{"N", c.n}, {"C", c.c}, {"H", c.h}, {"W", c.w}, {"O", c.o},
                         {"KH", c.kh}, {"KW", c.kw}, {"stride", c.stride}}) {
    if (v <= 0) {
      throw UserError(std::string("conv2d: ") + what + " is " + std::to_string(v) +
                      ", must be positive");
    }
  }
  if (c.pad < 0) throw UserError("conv2d: padding is negative");
  if (c.h + 2 * c.pad < c.kh || c.w + 2 * c.pad < c.kw) {
    throw UserError("conv2d: kernel " + std::to_string(c.kh) + "x" + std::to_string(c.kw) +
                    " is larger than the padded input " + std::to_string(c.h + 2 * c.pad) + "x" +
                    std::to_string(c.w + 2 * c.pad));
  }
  const int64_t oh = c.oh(), ow = c.ow(), ohw = oh * ow, khw = c.kh * c.kw;
  te::Tensor x = te::placeholder({c.n, c.c, c.h, c.w}, dtype, "X");
  // OIHW weights read as the [O, C*KH*KW] matrix they are in memory.
  te::Tensor w = te::placeholder({c.o, c.c * khw}, dtype, "Wt");
  GemmSpec spec;
  spec.name = "conv2d";
  spec.m = c.o;
  spec.n = c.n * ohw;
  spec.k = c.c * khw;
  spec.in = dtype;
  spec.a = [w](const Expr& o, const Expr& r) { return w({o, r}); };
  // Column p of the patch matrix: image p / OHW, output pixel p % OHW; row r: channel
  // r / (KH*KW), tap (r / KW) % KH, r % KW. Taps in the padding read zero.
  spec.b = [=](const Expr& p, const Expr& r) {
    auto im = [](int64_t v) { return ir::imm(v); };
    Expr n = ir::floordiv(p, im(ohw)), q = ir::floormod(p, im(ohw));
    Expr y = ir::sub(ir::add(ir::mul(ir::floordiv(q, im(ow)), im(c.stride)),
                             ir::floormod(ir::floordiv(r, im(c.kw)), im(c.kh))),
                     im(c.pad));
    Expr xx = ir::sub(ir::add(ir::mul(ir::floormod(q, im(ow)), im(c.stride)),
                              ir::floormod(r, im(c.kw))),
                      im(c.pad));
    Expr ch = ir::floordiv(r, im(khw));
    if (c.pad == 0) return x({n, ch, y, xx});
    Expr in = ir::logical_and(ir::logical_and(ir::ge(y, im(0)), ir::lt(y, im(c.h))),
                              ir::logical_and(ir::ge(xx, im(0)), ir::lt(xx, im(c.w))));
    Expr yc = ir::min(ir::max(y, im(0)), im(c.h - 1));
    Expr xc = ir::min(ir::max(xx, im(0)), im(c.w - 1));
    return ir::select(in, x({n, ch, yc, xc}), ir::imm(0, dtype));
  };
  spec.b_contiguous = false;
  spec.inputs = {x, w};
  spec.ops = 2.0 * double(spec.m) * double(spec.n) * double(spec.k);
  // The output is NCHW: Y[n, o, q] = C[o, n*OHW + q] (for one image, C itself).
  spec.out_shape = {c.n, c.o, oh, ow};
  spec.out = [=](const std::vector<Expr>& i,
                 const std::function<Expr(const Expr&, const Expr&)>& cat) {
    return cat(i[1], ir::add(ir::mul(i[0], ir::imm(ohw)),
                             ir::add(ir::mul(i[2], ir::imm(ow)), i[3])));
  };
  return gemm(spec, s);
}

namespace {

void check_shape(const Nchw& s, const char* op) {
  if (s.n <= 0 || s.c <= 0 || s.h <= 0 || s.w <= 0) {
    throw UserError(std::string(op) + ": every dimension of the NCHW shape must be positive");
  }
}
void check_dtype(DType t, const char* op, bool int32_ok = false) {
  if (t != DType::kFloat32 && t != DType::kInt8 && !(int32_ok && t == DType::kInt32)) {
    throw UserError(std::string(op) + ": dtype " + ir::dtype_name(t) +
                    " is not supported (float32 or int8)");
  }
}
Expr clip(Expr v, int64_t lo, int64_t hi) {
  return ir::min(ir::max(std::move(v), ir::imm(lo)), ir::imm(hi));
}

// An element-wise operator over `inputs` with one output of `shape`.
GpuOp flat_op(const std::string& name, const std::vector<te::Tensor>& inputs,
              const std::vector<int64_t>& shape, DType out,
              const std::function<Expr(const std::vector<Expr>&)>& f) {
  te::Tensor y = te::compute(shape, out, f, name);
  te::Schedule s({y});
  schedule_flat(s, y);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return finish(name, s, inputs, {y}, double(n), "elementwise");
}

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
      Expr in = ir::logical_and(ir::logical_and(ir::ge(y, ir::imm(0)), ir::lt(y, ir::imm(s.h))),
                                ir::logical_and(ir::ge(x, ir::imm(0)), ir::lt(x, ir::imm(s.w))));
      taps.push_back({clip(y, 0, s.h - 1), clip(x, 0, s.w - 1), pad > 0 ? in : nullptr});
    }
  return taps;
}

void check_pool(const Nchw& s, int64_t k, int64_t stride, int64_t pad, const char* op) {
  check_shape(s, op);
  if (k <= 0 || stride <= 0 || pad < 0 || pad >= k || s.h + 2 * pad < k || s.w + 2 * pad < k) {
    throw UserError(std::string(op) + ": window " + std::to_string(k) + " stride " +
                    std::to_string(stride) + " pad " + std::to_string(pad) +
                    " does not fit the input " + std::to_string(s.h) + "x" +
                    std::to_string(s.w) + " (pad must be below the window)");
  }
}

}  // namespace

GpuOp relu(const Nchw& shape, DType dtype) {
  check_shape(shape, "relu");
  check_dtype(dtype, "relu", true);
  te::Tensor x = te::placeholder(shape.dims(), dtype, "X");
  return flat_op("relu", {x}, shape.dims(), dtype, [&](const std::vector<Expr>& i) {
    return ir::max(x(i), ir::imm(0, dtype));
  });
}

GpuOp add(const Nchw& shape, DType dtype, bool relu) {
  check_shape(shape, "add");
  check_dtype(dtype, "add");
  te::Tensor a = te::placeholder(shape.dims(), dtype, "A");
  te::Tensor b = te::placeholder(shape.dims(), dtype, "B");
  return flat_op(relu ? "add_relu" : "add", {a, b}, shape.dims(), dtype,
                 [&](const std::vector<Expr>& i) -> Expr {
                   if (dtype == DType::kFloat32) {
                     Expr v = ir::add(a(i), b(i));
                     return relu ? ir::max(v, ir::fimm(0)) : v;
                   }
                   Expr v = ir::add(ir::cast(DType::kInt32, a(i)), ir::cast(DType::kInt32, b(i)));
                   return ir::cast(DType::kInt8, clip(v, relu ? 0 : -128, 127));
                 });
}

GpuOp bias_add(const Nchw& shape, bool relu) {
  check_shape(shape, "bias_add");
  te::Tensor x = te::placeholder(shape.dims(), DType::kFloat32, "X");
  te::Tensor bias = te::placeholder({shape.c}, DType::kFloat32, "bias");
  return flat_op(relu ? "bias_relu" : "bias_add", {x, bias}, shape.dims(), DType::kFloat32,
                 [&](const std::vector<Expr>& i) {
                   Expr v = ir::add(x(i), bias({i[1]}));
                   return relu ? ir::max(v, ir::fimm(0)) : v;
                 });
}

GpuOp requantize(const Nchw& shape, int shift, int64_t lo, int64_t hi) {
  check_shape(shape, "requantize");
  if (shift < 0 || shift > 31) throw UserError("requantize: shift must be in 0..31");
  if (lo < -128 || hi > 127 || lo > hi) throw UserError("requantize: clip range outside int8");
  te::Tensor x = te::placeholder(shape.dims(), DType::kInt32, "X");
  te::Tensor bias = te::placeholder({shape.c}, DType::kInt32, "bias");
  return flat_op("requantize", {x, bias}, shape.dims(), DType::kInt8,
                 [&](const std::vector<Expr>& i) {
                   Expr v = ir::add(ir::shr(x(i), ir::imm(shift, DType::kInt32)), bias({i[1]}));
                   return ir::cast(DType::kInt8, clip(v, lo, hi));
                 });
}

GpuOp max_pool2d(const Nchw& s, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_pool(s, k, stride, pad, "max_pool2d");
  check_dtype(dtype, "max_pool2d");
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

GpuOp avg_pool2d(const Nchw& s, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_pool(s, k, stride, pad, "avg_pool2d");
  check_dtype(dtype, "avg_pool2d");
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
      return ir::mul(
          sum, ir::call(DType::kFloat32, ir::Intrinsic::kRcp, {ir::cast(DType::kFloat32, count)}));
    }
    // Rounded half up: floor((2*sum + count) / (2*count)).
    return ir::cast(DType::kInt8, ir::floordiv(ir::add(ir::mul(sum, ir::imm(2, DType::kInt32)), count),
                                               ir::mul(count, ir::imm(2, DType::kInt32))));
  });
}

GpuOp global_avg_pool(const Nchw& s, DType dtype) {
  check_shape(s, "global_avg_pool");
  check_dtype(dtype, "global_avg_pool");
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
        return ir::cast(DType::kInt8, ir::floordiv(ir::add(sum(i), ir::imm(hw / 2, acc)),
                                                   ir::imm(hw, acc)));
      },
      "global_avg_pool");
  te::Schedule sch({y});
  schedule_flat(sch, sum);
  schedule_flat(sch, y);
  return finish("global_avg_pool", sch, {x}, {y}, double(s.elements()), "elementwise");
}

}  // namespace weft::rt::gpu
