// CPU operator definitions and their default schedules; see ops.h.
//
// The GEMM-like operators (dense, conv2d) share one shape of schedule, after the classic
// BLIS micro-kernel: the output is computed on a domain padded to whole register tiles (reads
// clamped into range, packed weights zero-padded) so the hot loops carry no guards; the tile
// is a cache_write stage in local scope computed at the tile loop, its reduction loops outside
// its unrolled rows and vectorized 16-wide columns, so LLVM keeps it in 12-14 AVX2 registers.
// When the real output is smaller than the padded domain a final copy drops the padding.
#include "runtime/cpu/ops.h"

#include <functional>

#include "compiler/te/lower.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"

namespace weft::rt::cpu {

namespace ir = compiler::ir;
namespace te = compiler::te;
using ir::Expr;
using ir::ForKind;

DType parse_dtype(const std::string& name, const std::string& where) {
  if (name == "float32") return DType::kFloat32;
  if (name == "int8") return DType::kInt8;
  throw UserError(where + ": unknown dtype '" + name + "' (float32 or int8)");
}

namespace {

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

void check_dtype(DType t, const char* op) {
  if (t != DType::kFloat32 && t != DType::kInt8) {
    throw UserError(std::string(op) + ": dtype " + ir::dtype_name(t) +
                    " is not supported (float32 or int8)");
  }
}
void check_positive(const char* op, const char* what, int64_t v) {
  if (v <= 0) {
    throw UserError(std::string(op) + ": " + what + " is " + std::to_string(v) +
                    ", must be positive");
  }
}
DType acc_of(DType t) { return t == DType::kFloat32 ? DType::kFloat32 : DType::kInt32; }

// Two int8/int16 values as the low and high int16 halves of an int32 (for dot2_i16).
Expr pair16(const Expr& lo, const Expr& hi) {
  const DType i32 = DType::kInt32;
  return ir::add(ir::floormod(ir::cast(i32, lo), ir::imm(65536, i32)),
                 ir::mul(ir::cast(i32, hi), ir::imm(65536, i32)));
}

Expr clamp(Expr v, int64_t lo, int64_t hi) {
  return ir::min(ir::max(std::move(v), ir::imm(lo)), ir::imm(hi));
}

// Lowers the schedule into a function over inputs, outputs and every other global buffer.
CpuOp finish(const std::string& name, te::Schedule& s, const std::vector<te::Tensor>& inputs,
             const std::vector<te::Tensor>& outputs, double ops) {
  CpuOp op;
  op.func = compiler::codegen::lower_func(name, s, inputs, outputs);
  op.num_inputs = inputs.size();
  op.num_outputs = outputs.size();
  op.ops = ops;
  return op;
}

// The cache_write tile of stage `out` computed at `at`: reductions outside, then the spatial
// axes whose region is more than one element (the last one vectorized, the one before unrolled).
void schedule_tile(te::Schedule& s, const te::Tensor& local, te::Stage& out,
                   const te::IterVar& at) {
  te::Stage& st = s[local];
  st.compute_at(out, at);
  std::vector<te::IterVar> order = st.reduce_axes();
  const auto& axes = st.axes();
  const size_t n = axes.size();
  order.push_back(axes[n - 2]);
  order.push_back(axes[n - 1]);
  st.reorder(order);
  st.set_kind(axes[n - 2], ForKind::kUnrolled);
  st.set_kind(axes[n - 1], ForKind::kVectorized);
}

// A copy of `src` restricted to `shape` (dropping the padding of a padded domain), vectorized
// along the last axis in `vec`-wide pieces with the first axis parallel.
te::Tensor crop(const te::Tensor& src, const std::vector<int64_t>& shape, const std::string& name) {
  return te::compute(
      shape, src->dtype, [&](const std::vector<Expr>& i) { return src(i); }, name);
}
void schedule_elementwise(te::Stage& st, int64_t vec) {
  const auto axes = st.axes();
  const te::IterVar last = axes.back();
  if (last->extent > vec) {
    auto [o, i] = st.split(last, vec);
    st.set_kind(i, ForKind::kVectorized);
  } else {
    st.set_kind(last, ForKind::kVectorized);
  }
  // The channel-block axis of a blocked tensor (the batch is usually 1), else the first.
  if (axes.size() > 1) st.set_kind(axes[axes.size() >= 3 ? 1 : 0], ForKind::kParallel);
}

}  // namespace

CpuOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const DenseSchedule& sch) {
  check_dtype(dtype, "dense");
  check_positive("dense", "M", m);
  check_positive("dense", "N", n);
  check_positive("dense", "K", k);
  if (sch.rows < 1 || sch.rows > 16 || sch.cols < 1 || sch.cols > 64) {
    throw UserError("dense: register tile " + std::to_string(sch.rows) + "x" +
                    std::to_string(sch.cols) + " is outside 1..16 rows x 1..64 columns");
  }
  const DType acc = acc_of(dtype);
  const int64_t mr = sch.rows, nr = sch.cols;
  const int64_t mp = round_up(m, mr), np = round_up(n, nr);
  const bool exact = mp == m && np == n;

  te::Tensor a = te::placeholder({m, k}, dtype, "A");
  te::Tensor w = te::placeholder({n, k}, dtype, "W");
  // W[j, q], zero past N (and past K).
  auto w_at = [&](const Expr& j, const Expr& q, bool k_guard) {
    Expr jj = np == n ? j : ir::min(j, ir::imm(n - 1));
    Expr qq = k_guard ? ir::min(q, ir::imm(k - 1)) : q;
    Expr v = w({jj, qq});
    Expr ok;
    if (np != n) ok = ir::lt(j, ir::imm(n));
    if (k_guard) ok = ok ? ir::logical_and(ok, ir::lt(q, ir::imm(k))) : ir::lt(q, ir::imm(k));
    return ok ? ir::select(ok, v, ir::imm(0, dtype)) : v;
  };
  const te::IterVar kk = te::reduce_axis(dtype == DType::kInt8 ? (k + 1) / 2 : k, "k");
  te::Tensor ap = a, wp;
  std::function<Expr(const Expr&, const Expr&)> term;
  if (dtype == DType::kFloat32) {
    // Weights packed into column panels of nr: wp[jo, k, ji] = W[jo*nr + ji, k].
    wp = te::compute(
        {np / nr, k, nr}, dtype,
        [&](const std::vector<Expr>& i) {
          return w_at(ir::add(ir::mul(i[0], ir::imm(nr)), i[2]), i[1], false);
        },
        "W.packed");
    term = [&](const Expr& row, const Expr& j) {
      return ir::mul(a({row, ir::ref(kk->var)}), wp({ir::floordiv(j, ir::imm(nr)), ir::ref(kk->var),
                                                     ir::floormod(j, ir::imm(nr))}));
    };
  } else {
    // int8: reduction steps in pairs, each pair two int16 halves of an int32, multiplied and
    // added by dot2_i16 (pmaddwd): A packed to [M, K/2], W to panels [N/nr, K/2, nr].
    const DType i32 = DType::kInt32;
    auto pair = pair16;
    const bool odd = k % 2 != 0;
    ap = te::compute(
        {m, (k + 1) / 2}, i32,
        [&](const std::vector<Expr>& i) {
          Expr q0 = ir::mul(i[1], ir::imm(2)), q1 = ir::add(q0, ir::imm(1));
          Expr hi = a({i[0], odd ? ir::min(q1, ir::imm(k - 1)) : q1});
          if (odd) hi = ir::select(ir::lt(q1, ir::imm(k)), hi, ir::imm(0, dtype));
          return pair(a({i[0], q0}), hi);
        },
        "A.pairs");
    wp = te::compute(
        {np / nr, (k + 1) / 2, nr}, i32,
        [&](const std::vector<Expr>& i) {
          Expr j = ir::add(ir::mul(i[0], ir::imm(nr)), i[2]);
          Expr q0 = ir::mul(i[1], ir::imm(2));
          return pair(w_at(j, q0, false), w_at(j, ir::add(q0, ir::imm(1)), odd));
        },
        "W.pairs");
    term = [&](const Expr& row, const Expr& j) {
      return ir::dot2_i16(
          ap({row, ir::ref(kk->var)}),
          wp({ir::floordiv(j, ir::imm(nr)), ir::ref(kk->var), ir::floormod(j, ir::imm(nr))}));
    };
  }
  te::Tensor cf = te::compute_reduce(
      {mp, np}, acc,
      [&](const std::vector<Expr>& i) {
        Expr row = exact || mp == m ? i[0] : ir::min(i[0], ir::imm(m - 1));
        return te::sum(term(row, i[1]), {kk});
      },
      exact ? "C" : "C.padded");
  te::Tensor c = exact ? cf : crop(cf, {m, n}, "C");

  te::Schedule s({c});
  const te::Tensor local = s.cache_write(cf, ir::Scope::kLocal);
  te::Stage& sc = s[cf];
  auto [io, ii] = sc.split(sc.axes()[0], mr);
  auto [jo, ji] = sc.split(sc.axes()[1], nr);
  sc.reorder({jo, io, ii, ji});
  if (sch.parallel) sc.set_kind(jo, ForKind::kParallel);
  sc.set_kind(ii, ForKind::kUnrolled);
  sc.set_kind(ji, ForKind::kVectorized);
  schedule_tile(s, local, sc, io);
  te::Stage& sw = s[wp];
  if (sch.parallel) sw.set_kind(sw.axes()[0], ForKind::kParallel);
  sw.set_kind(sw.axes()[2], ForKind::kVectorized);
  if (dtype == DType::kInt8) {
    te::Stage& sa = s[ap];
    if (sch.parallel) sa.set_kind(sa.axes()[0], ForKind::kParallel);
  }
  if (!exact) schedule_elementwise(s[c], 16);
  return finish(std::string("dense_") + ir::dtype_name(dtype), s, {a, w}, {c},
                2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
}

int64_t conv_in_block(int64_t c) {
  for (int64_t b : {16, 8}) {
    if (c % b == 0) return b;
  }
  if (c < 16) return c;
  for (int64_t b = 16; b > 1; --b) {
    if (c % b == 0) return b;
  }
  return 1;
}

CpuOp conv2d(const Conv2dShape& sh, DType dtype, const ConvSchedule& sch) {
  check_dtype(dtype, "conv2d");
  check_positive("conv2d", "batch", sh.n);
  check_positive("conv2d", "input channels", sh.c);
  check_positive("conv2d", "input height", sh.h);
  check_positive("conv2d", "input width", sh.w);
  check_positive("conv2d", "output channels", sh.o);
  check_positive("conv2d", "kernel height", sh.kh);
  check_positive("conv2d", "kernel width", sh.kw);
  check_positive("conv2d", "stride", sh.stride);
  if (sh.pad < 0) throw UserError("conv2d: padding " + std::to_string(sh.pad) + " is negative");
  if (sh.kh > sh.h + 2 * sh.pad || sh.kw > sh.w + 2 * sh.pad) {
    throw UserError("conv2d: kernel " + std::to_string(sh.kh) + "x" + std::to_string(sh.kw) +
                    " is larger than the padded input " + std::to_string(sh.h + 2 * sh.pad) + "x" +
                    std::to_string(sh.w + 2 * sh.pad));
  }
  const DType acc = acc_of(dtype);
  const int64_t cb = conv_in_block(sh.c), ncb = sh.c / cb;
  const int64_t ob = kConvOutBlock, nob = (sh.o + ob - 1) / ob;
  const int64_t oh = sh.oh(), ow = sh.ow();
  const int64_t r = sch.ow > 0 ? sch.ow : (ow % 7 == 0 ? 7 : 6);
  if (r > 16)
    throw UserError("conv2d: register tile of " + std::to_string(r) + " columns (at most 16)");
  const int64_t owp = round_up(ow, r);
  const int64_t hp = sh.h + 2 * sh.pad, wpd = sh.w + 2 * sh.pad;

  // int8 pairs the channels of a block (dot2_i16): weights arrive paired, the input is paired
  // (and padded) by a stage of the kernel.
  const bool pairs = dtype == DType::kInt8;
  const int64_t cbk = pairs ? (cb + 1) / 2 : cb;
  const DType wdt = pairs ? DType::kInt32 : dtype;
  te::Tensor x = te::placeholder({sh.n, ncb, sh.h, sh.w, cb}, dtype, "X");
  te::Tensor wt = te::placeholder({nob, ncb, sh.kh, sh.kw, cbk, ob}, wdt, "W");
  te::Tensor xp = x;
  if (sh.pad > 0 || pairs) {
    const int64_t p = sh.pad;
    xp = te::compute(
        {sh.n, ncb, hp, wpd, cbk}, wdt,
        [&](const std::vector<Expr>& i) {
          auto at = [&](const Expr& c, bool c_guard) {
            Expr inside;
            if (p > 0) {
              inside = ir::logical_and(
                  ir::logical_and(ir::ge(i[2], ir::imm(p)), ir::lt(i[2], ir::imm(sh.h + p))),
                  ir::logical_and(ir::ge(i[3], ir::imm(p)), ir::lt(i[3], ir::imm(sh.w + p))));
            }
            if (c_guard) {
              Expr ok = ir::lt(c, ir::imm(cb));
              inside = inside ? ir::logical_and(inside, ok) : ok;
            }
            Expr v = x({i[0], i[1], p > 0 ? clamp(ir::sub(i[2], ir::imm(p)), 0, sh.h - 1) : i[2],
                        p > 0 ? clamp(ir::sub(i[3], ir::imm(p)), 0, sh.w - 1) : i[3],
                        c_guard ? ir::min(c, ir::imm(cb - 1)) : c});
            return inside ? ir::select(inside, v, ir::imm(0, dtype)) : v;
          };
          if (!pairs) return at(i[4], false);
          Expr c0 = ir::mul(i[4], ir::imm(2));
          return pair16(at(c0, false), at(ir::add(c0, ir::imm(1)), cb % 2 != 0));
        },
        pairs ? "X.pairs" : "X.padded");
  }
  const te::IterVar rc = te::reduce_axis(ncb, "rc");
  const te::IterVar ry = te::reduce_axis(sh.kh, "ry");
  const te::IterVar rx = te::reduce_axis(sh.kw, "rx");
  const te::IterVar ri = te::reduce_axis(cbk, "ri");
  const bool exact = owp == ow;
  te::Tensor yf = te::compute_reduce(
      {sh.n, nob, oh, owp, ob}, acc,
      [&](const std::vector<Expr>& i) {
        Expr iy = ir::add(ir::mul(i[2], ir::imm(sh.stride)), ir::ref(ry->var));
        Expr ix = ir::add(ir::mul(i[3], ir::imm(sh.stride)), ir::ref(rx->var));
        if (!exact) ix = ir::min(ix, ir::imm(wpd - 1));
        Expr a = xp({i[0], ir::ref(rc->var), iy, ix, ir::ref(ri->var)});
        Expr b = wt(
            {i[1], ir::ref(rc->var), ir::ref(ry->var), ir::ref(rx->var), ir::ref(ri->var), i[4]});
        if (pairs) return te::sum(ir::dot2_i16(a, b), {rc, ry, rx, ri});
        return te::sum(ir::mul(ir::cast(acc, a), ir::cast(acc, b)), {rc, ry, rx, ri});
      },
      exact ? "Y" : "Y.padded");
  te::Tensor y = exact ? yf : crop(yf, {sh.n, nob, oh, ow, ob}, "Y");

  te::Schedule s({y});
  const te::Tensor local = s.cache_write(yf, ir::Scope::kLocal);
  te::Stage& sy = s[yf];
  const auto axes = sy.axes();
  auto [xo, xi] = sy.split(axes[3], r);
  if (sch.parallel) sy.set_kind(nob >= 2 ? axes[1] : axes[2], ForKind::kParallel);
  sy.set_kind(xi, ForKind::kUnrolled);
  sy.set_kind(axes[4], ForKind::kVectorized);
  schedule_tile(s, local, sy, xo);
  if (sh.pad > 0 || pairs) {
    te::Stage& sp = s[xp];
    if (sch.parallel) sp.set_kind(sp.axes()[1], ForKind::kParallel);
    if (cbk > 1) sp.set_kind(sp.axes()[4], ForKind::kVectorized);
  }
  if (!exact) schedule_elementwise(s[y], 16);
  const double ops =
      2.0 * static_cast<double>(sh.n * sh.o * oh * ow) * static_cast<double>(sh.c * sh.kh * sh.kw);
  return finish(std::string("conv2d_") + ir::dtype_name(dtype), s, {x, wt}, {y}, ops);
}

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

CpuOp relu(const Blocked& b, DType dtype) {
  check_dtype(dtype, "relu");
  check_blocked(b, "relu");
  te::Tensor x = te::placeholder(b.dims(), dtype, "X");
  te::Tensor y = te::compute(
      b.dims(), dtype, [&](const std::vector<Expr>& i) { return ir::max(x(i), zero(dtype)); }, "Y");
  te::Schedule s({y});
  schedule_elementwise(s[y], 16);
  return finish(std::string("relu_") + ir::dtype_name(dtype), s, {x}, {y},
                static_cast<double>(b.elements()));
}

CpuOp add_relu(const Blocked& b, DType dtype) {
  check_dtype(dtype, "add_relu");
  check_blocked(b, "add_relu");
  te::Tensor x = te::placeholder(b.dims(), dtype, "A");
  te::Tensor z = te::placeholder(b.dims(), dtype, "B");
  te::Tensor y = te::compute(
      b.dims(), dtype,
      [&](const std::vector<Expr>& i) {
        if (dtype == DType::kFloat32) return ir::max(ir::add(x(i), z(i)), zero(dtype));
        Expr sum = ir::add(ir::cast(DType::kInt32, x(i)), ir::cast(DType::kInt32, z(i)));
        return ir::min(ir::max(sum, ir::imm(0, DType::kInt32)), ir::imm(127, DType::kInt32));
      },
      "Y");
  te::Schedule s({y});
  schedule_elementwise(s[y], 16);
  return finish(std::string("add_relu_") + ir::dtype_name(dtype), s, {x, z}, {y},
                2.0 * static_cast<double>(b.elements()));
}

CpuOp bias_relu(const Blocked& b) {
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
  schedule_elementwise(s[y], 16);
  return finish("bias_relu_float32", s, {x, bias}, {y}, 2.0 * static_cast<double>(b.elements()));
}

CpuOp requantize(const Blocked& b, int shift) {
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
        return ir::min(ir::max(v, ir::imm(0, DType::kInt32)), ir::imm(127, DType::kInt32));
      },
      "Y");
  te::Schedule s({y});
  schedule_elementwise(s[y], 16);
  return finish("requantize_int8", s, {x, bias}, {y}, 3.0 * static_cast<double>(b.elements()));
}

CpuOp max_pool2d(const Blocked& b, int64_t k, int64_t stride, int64_t pad, DType dtype) {
  check_dtype(dtype, "max_pool2d");
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
              Expr inside = ir::logical_and(
                  ir::logical_and(ir::ge(iy, ir::imm(0)), ir::lt(iy, ir::imm(b.h))),
                  ir::logical_and(ir::ge(ix, ir::imm(0)), ir::lt(ix, ir::imm(b.w))));
              v = ir::select(inside, v, lowest);
            }
            best = best ? ir::max(best, v) : v;
          }
        }
        return best;
      },
      "Y");
  te::Schedule s({y});
  schedule_elementwise(s[y], 16);
  return finish(std::string("max_pool2d_") + ir::dtype_name(dtype), s, {x}, {y},
                static_cast<double>(b.n * b.cb * oh * ow * b.c * k * k));
}

CpuOp global_avg_pool(const Blocked& b, DType dtype) {
  check_dtype(dtype, "global_avg_pool");
  check_blocked(b, "global_avg_pool");
  const DType acc = acc_of(dtype);
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
  schedule_elementwise(s[y], 16);
  return finish(std::string("global_avg_pool_") + ir::dtype_name(dtype), s, {x}, {y},
                static_cast<double>(b.elements()));
}

}  // namespace weft::rt::cpu
