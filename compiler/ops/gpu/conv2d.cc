// The GPU conv2d operator; see conv2d.h.
#include "compiler/ops/gpu/conv2d.h"

#include "compiler/ops/index_ir.h"

namespace weft::compiler::ops::gpu {

using ir::Expr;

LoweredOp conv2d(const Conv2dNchw& c, DType dtype, const GemmSchedule& s) {
  check_conv2d_shape(c);
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
    Expr xx =
        ir::sub(ir::add(ir::mul(ir::floormod(q, im(ow)), im(c.stride)), ir::floormod(r, im(c.kw))),
                im(c.pad));
    Expr ch = ir::floordiv(r, im(khw));
    if (c.pad == 0) return x({n, ch, y, xx});
    return ir::select(inside(y, xx, c.h, c.w),
                      x({n, ch, clamp(y, 0, c.h - 1), clamp(xx, 0, c.w - 1)}), ir::imm(0, dtype));
  };
  spec.b_contiguous = false;
  spec.inputs = {x, w};
  spec.ops = 2.0 * double(spec.m) * double(spec.n) * double(spec.k);
  // The output is NCHW: Y[n, o, q] = C[o, n*OHW + q] (for one image, C itself).
  spec.out_shape = {c.n, c.o, oh, ow};
  spec.out = [=](const std::vector<Expr>& i,
                 const std::function<Expr(const Expr&, const Expr&)>& cat) {
    return cat(i[1],
               ir::add(ir::mul(i[0], ir::imm(ohw)), ir::add(ir::mul(i[2], ir::imm(ow)), i[3])));
  };
  return gemm(spec, s);
}

}  // namespace weft::compiler::ops::gpu
