// The CPU grouped and depthwise convolution; see grouped_conv.h.
#include "compiler/ops/cpu/grouped_conv.h"

#include "compiler/ops/cpu/pool.h"
#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using IDT = ir::DType;

std::string GroupedConv::str() const {
  std::string s;
  for (int64_t v : {n, c, h, w, o, group, kh, kw, sh, sw, pt, pl, oh, ow})
    s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

LoweredOp grouped_conv2d(const GroupedConv& s) {
  if (s.group < 1 || s.c % s.group || s.o % s.group || s.n < 1 || s.kh < 1 || s.kw < 1 ||
      s.sh < 1 || s.sw < 1 || s.oh < 1 || s.ow < 1)
    throw UserError("grouped_conv2d: impossible shape " + s.str());
  const int64_t cg = s.c / s.group, og = s.o / s.group;
  te::Tensor x = te::placeholder({s.n, s.c, s.h, s.w}, IDT::kFloat32, "X");
  te::Tensor w = te::placeholder({s.o, cg, s.kh, s.kw}, IDT::kFloat32, "W");
  const te::IterVar rc = te::reduce_axis(cg, "rc"), ry = te::reduce_axis(s.kh, "ry"),
                    rx = te::reduce_axis(s.kw, "rx");
  const Window win{1, s.h, s.w, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.pt, s.pl, 0, 0};
  const bool guard = win.needs_guard();
  te::Tensor acc = te::compute_reduce(
      {s.n, s.o, s.oh, s.ow}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        const Expr ci = ir::add(ir::mul(ir::floordiv(i[1], ir::imm(og)), ir::imm(cg)), ir::ref(rc->var));
        const Expr iy = tap(i[2], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[3], ir::ref(rx->var), s.sw, s.pl);
        Expr v = x({i[0], ci, guard ? clamp(iy, 0, s.h - 1) : iy, guard ? clamp(ix, 0, s.w - 1) : ix});
        if (guard) v = ir::select(inside(iy, ix, s.h, s.w), v, ir::fimm(0.0));
        return te::sum(ir::mul(v, w({i[1], ir::ref(rc->var), ir::ref(ry->var), ir::ref(rx->var)})),
                       {rc, ry, rx});
      },
      "Y.sum");
  te::Tensor y = te::compute(
      {s.n, s.o, s.oh, s.ow}, IDT::kFloat32, [&](const std::vector<Expr>& i) { return acc(i); },
      "Y");
  te::Schedule sc({y});
  schedule_window(sc[acc]);
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[2]);
  vectorize_inner(sc[y]);
  return lower_op(kGraphKernelName, sc, {x, w}, {y});
}

}  // namespace weft::compiler::ops::cpu
