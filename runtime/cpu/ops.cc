// CPU operator definitions and their default schedules; see ops.h.
//
// The GEMM-like operators (dense, conv2d) share one shape of schedule, after the classic
// BLIS micro-kernel: the output is computed on a domain padded to whole register tiles (reads
// clamped into range, packed weights zero-padded) so the hot loops carry no guards; the tile
// is a cache_write stage in local scope computed at the tile loop, its reduction loops outside
// its unrolled rows and vectorized 16-wide columns, so LLVM keeps it in 12-14 AVX2 registers.
// When the real output is smaller than the padded domain a final copy drops the padding.
#include "runtime/cpu/ops.h"

#include <algorithm>
#include <functional>
#include <tuple>

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

// Schedules one pass of dense: the pass's result `part` in register tiles (rows blocked by
// `mb` when > 0, the parallel loop), and its tile sums `local` computed at the row-tile loop
// as the micro-kernel: reduction outside (k_unroll steps unrolled), rows unrolled, columns
// vectorized (in unrolled pieces of `lanes`). Returns the column-panel loop (where a panel of
// W packed in the kernel is computed).
te::IterVar schedule_pass(te::Schedule& s, const te::Tensor& part, const te::Tensor& local,
                          const DenseSchedule& sch, int64_t mb) {
  const int64_t mr = sch.rows, nr = sch.cols;
  te::Stage& sc = s[part];
  te::IterVar rows_axis = sc.axes()[0], ib;
  if (mb > 0) std::tie(ib, rows_axis) = sc.split(rows_axis, mb);
  auto [io, ii] = sc.split(rows_axis, mr);
  auto [jo, ji] = sc.split(sc.axes()[1], nr);
  if (mb > 0) {
    sc.reorder({ib, jo, io, ii, ji});
  } else if (sch.parallel && sch.parallel_axis == 1) {
    sc.reorder({io, jo, ii, ji});
  } else {
    sc.reorder({jo, io, ii, ji});
  }
  if (sch.parallel) {
    const te::IterVar& par = sch.parallel_axis == 0 ? jo : (mb > 0 ? ib : io);
    sc.set_kind(par, ForKind::kParallel);
  }
  sc.set_kind(ii, ForKind::kUnrolled);
  sc.set_kind(ji, ForKind::kVectorized);
  te::Stage& sl = s[local];
  sl.compute_at(sc, io);
  te::IterVar ko = sl.reduce_axes()[0], ki;
  const te::IterVar lr = sl.axes()[0];
  te::IterVar lc = sl.axes()[1], lco;
  std::vector<te::IterVar> order{ko};
  if (sch.k_unroll > 1 && ko->extent % sch.k_unroll == 0) {
    std::tie(ko, ki) = sl.split(ko, sch.k_unroll);
    order = {ko, ki};
  }
  if (sch.lanes > 0 && sch.lanes < nr) {
    std::tie(lco, lc) = sl.split(lc, sch.lanes);
    order.push_back(lr);
    order.push_back(lco);
  } else {
    order.push_back(lr);
  }
  order.push_back(lc);
  sl.reorder(order);
  if (ki) sl.set_kind(ki, ForKind::kUnrolled);
  sl.set_kind(lr, ForKind::kUnrolled);
  if (lco) sl.set_kind(lco, ForKind::kUnrolled);
  sl.set_kind(lc, ForKind::kVectorized);
  return jo;
}

}  // namespace

void validate(const DenseSchedule& s) {
  auto bad = [](const std::string& what) { throw UserError("dense schedule: " + what); };
  if (s.rows < 1 || s.rows > 16 || s.cols < 1 || s.cols > 64) {
    throw UserError("dense: register tile " + std::to_string(s.rows) + "x" +
                    std::to_string(s.cols) + " is outside 1..16 rows x 1..64 columns");
  }
  if (s.lanes < 0 || (s.lanes > 0 && s.cols % s.lanes != 0))
    bad("lanes " + std::to_string(s.lanes) + " do not divide the tile's " +
        std::to_string(s.cols) + " columns");
  if (s.k_unroll < 1 || s.k_unroll > 16)
    bad("k_unroll " + std::to_string(s.k_unroll) + " is outside 1..16");
  if (s.row_block < 0 || (s.row_block > 0 && s.row_block % s.rows != 0))
    bad("row_block " + std::to_string(s.row_block) + " is not a multiple of the tile's " +
        std::to_string(s.rows) + " rows");
  if (s.k_pack != 2 && s.k_pack != 4)
    bad("k_pack " + std::to_string(s.k_pack) + " (2: int16 pairs, 4: bytes)");
  if (s.k_block < 0)
    bad("k_block " + std::to_string(s.k_block) + " is negative (0: no K blocking)");
  if (s.pack_w < 0 || s.pack_w > 3)
    bad("pack_w " + std::to_string(s.pack_w) +
        " (0: gathered columns, 1: rows; 2, 3: the same, each panel packed in the kernel)");
  if (s.parallel_axis != 0 && s.parallel_axis != 1)
    bad("parallel_axis " + std::to_string(s.parallel_axis) + " (0: column panels, 1: rows)");
}

CpuOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const DenseSchedule& sch) {
  check_dtype(dtype, "dense");
  check_positive("dense", "M", m);
  check_positive("dense", "N", n);
  check_positive("dense", "K", k);
  validate(sch);
  const DType acc = acc_of(dtype);
  const int64_t mr = sch.rows, nr = sch.cols;
  // Rows are padded to whole tiles (and to whole row blocks when blocked).
  const int64_t mb = sch.row_block > 0 ? std::min(sch.row_block, round_up(m, mr)) : 0;
  const int64_t mp = round_up(m, mb > 0 ? mb : mr), np = round_up(n, nr);
  const bool exact = mp == m && np == n;
  const bool quads = dtype == DType::kInt8 && sch.k_pack == 4;
  const int64_t kq = dtype == DType::kInt8 ? (k + sch.k_pack - 1) / sch.k_pack : k;  // steps

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
  const bool odd = k % 2 != 0;
  // A's reduction step q of (clamped) row `row`: the element (fp32), or a pair of int8 as two
  // int16 halves (int8, for dot2_i16).
  const DType i32 = DType::kInt32;
  // Byte b of a quad: A's offset by +128 (unsigned; the top byte as a signed value so that the
  // int32 does not overflow), W's as they are; zero past K.
  auto quad = [&](const std::function<Expr(const Expr&)>& at, const Expr& q, bool a_side) {
    Expr sum;
    for (int64_t b = 0; b < 4; ++b) {
      Expr idx = ir::add(ir::mul(q, ir::imm(4)), ir::imm(b));
      const bool guard = k % 4 != 0;
      Expr v = ir::cast(i32, at(guard ? ir::min(idx, ir::imm(k - 1)) : idx));
      Expr byte;
      if (b < 3) {
        byte = ir::floormod(a_side ? ir::add(v, ir::imm(128, i32)) : v, ir::imm(256, i32));
      } else {
        byte = a_side ? ir::sub(ir::floormod(v, ir::imm(256, i32)), ir::imm(128, i32)) : v;
      }
      if (guard) byte = ir::select(ir::lt(idx, ir::imm(k)), byte, ir::imm(0, i32));
      if (b > 0) byte = ir::mul(byte, ir::imm(int64_t{1} << (8 * b), i32));
      sum = sum ? ir::add(sum, byte) : byte;
    }
    return sum;
  };
  auto a_step = [&](const Expr& row, const Expr& q) -> Expr {
    if (dtype == DType::kFloat32) return a({row, q});
    if (quads) return quad([&](const Expr& c) { return a({row, c}); }, q, true);
    Expr q0 = ir::mul(q, ir::imm(2)), q1 = ir::add(q0, ir::imm(1));
    Expr hi = a({row, odd ? ir::min(q1, ir::imm(k - 1)) : q1});
    if (odd) hi = ir::select(ir::lt(q1, ir::imm(k)), hi, ir::imm(0, dtype));
    return pair16(a({row, q0}), hi);
  };
  const DType step_t = dtype == DType::kFloat32 ? dtype : DType::kInt32;
  auto clamp_row = [&](const Expr& r) { return mp == m ? r : ir::min(r, ir::imm(m - 1)); };
  // Weights packed into column panels of nr: wp[jo, q, ji] = W step q of column jo*nr + ji.
  te::Tensor wp = te::compute(
      {np / nr, kq, nr}, step_t,
      [&](const std::vector<Expr>& i) {
        Expr j = ir::add(ir::mul(i[0], ir::imm(nr)), i[2]);
        if (dtype == DType::kFloat32) return w_at(j, i[1], false);
        if (quads) return quad([&](const Expr& c) { return w_at(j, c, false); }, i[1], false);
        Expr q0 = ir::mul(i[1], ir::imm(2));
        return pair16(w_at(j, q0, false), w_at(j, ir::add(q0, ir::imm(1)), odd));
      },
      dtype == DType::kFloat32 ? "W.packed" : (quads ? "W.quads" : "W.pairs"));
  // A as the kernel reads it: the placeholder (fp32), pairs [M, K/2] (int8), or row panels
  // [Mp/mr, K', mr] with rows past M clamped (pack_a).
  te::Tensor ap;
  if (sch.pack_a) {
    ap = te::compute(
        {mp / mr, kq, mr}, step_t,
        [&](const std::vector<Expr>& i) {
          return a_step(clamp_row(ir::add(ir::mul(i[0], ir::imm(mr)), i[2])), i[1]);
        },
        "A.packed");
  } else if (dtype == DType::kInt8) {
    ap = te::compute(
        {m, kq}, step_t, [&](const std::vector<Expr>& i) { return a_step(i[0], i[1]); },
        quads ? "A.quads" : "A.pairs");
  }
  auto a_read = [&](const Expr& row, const Expr& q) -> Expr {
    if (sch.pack_a)
      return ap({ir::floordiv(row, ir::imm(mr)), q, ir::floormod(row, ir::imm(mr))});
    if (dtype == DType::kInt8) return ap({clamp_row(row), q});
    return a({clamp_row(row), q});
  };
  // The reduction in K blocks of `kb` steps (one block without k_block): block b's partial
  // sums are a local tile (C.acc<b>) added to the previous block's result in the pass's
  // epilogue, so each pass over C reads only its block of A and of W's panels.
  const int64_t kb = sch.k_block > 0 && sch.k_block < kq ? sch.k_block : kq;
  const int64_t nblocks = (kq + kb - 1) / kb;
  const bool chained = nblocks > 1 || quads;
  const std::string c_name = exact ? "C" : "C.padded";
  auto block_sum = [&](int64_t b) {
    const int64_t k0 = b * kb;
    const te::IterVar kk = te::reduce_axis(std::min(kb, kq - k0), "k");
    const std::string name = chained ? "C.acc" + (nblocks > 1 ? std::to_string(b) : "") : c_name;
    return te::compute_reduce(
        {mp, np}, acc,
        [&](const std::vector<Expr>& i) {
          const Expr q = k0 == 0 ? ir::ref(kk->var) : ir::add(ir::ref(kk->var), ir::imm(k0));
          Expr wv = wp({ir::floordiv(i[1], ir::imm(nr)), q, ir::floormod(i[1], ir::imm(nr))});
          Expr av = a_read(i[0], q);
          if (dtype == DType::kFloat32) return te::sum(ir::mul(av, wv), {kk});
          return te::sum(quads ? ir::dot4_u8s8(av, wv) : ir::dot2_i16(av, wv), {kk});
        },
        name);
  };
  // quads: the +128 offset of A comes back out per column, comp[j] = 128 * sum_k W[j, k]
  // (dot4 of 128 in every byte with W's packed quads).
  te::Tensor comp;
  const te::IterVar kc = te::reduce_axis(kq, "kc");
  if (quads) {
    comp = te::compute_reduce(
        {np}, i32,
        [&](const std::vector<Expr>& i) {
          Expr wv = wp({ir::floordiv(i[0], ir::imm(nr)), ir::ref(kc->var),
                        ir::floormod(i[0], ir::imm(nr))});
          return te::sum(ir::dot4_u8s8(ir::imm(int64_t{-2139062144}, i32), wv), {kc});
        },
        "W.comp");
  }
  // The passes: (tile sums, the pass's result); the last result is C (or C.padded).
  std::vector<std::pair<te::Tensor, te::Tensor>> passes;
  for (int64_t b = 0; b < nblocks; ++b) {
    te::Tensor sum = block_sum(b);
    if (!chained) {
      passes.push_back({sum, sum});
      break;
    }
    const bool last = b + 1 == nblocks;
    te::Tensor prev = b > 0 ? passes.back().second : te::Tensor();
    te::Tensor part = te::compute(
        {mp, np}, acc,
        [&](const std::vector<Expr>& i) {
          Expr v = sum(i);
          if (prev.get() != nullptr) v = ir::add(prev(i), v);
          if (last && quads) v = ir::sub(v, comp({i[1]}));
          return v;
        },
        last ? c_name : "C.part" + std::to_string(b));
    passes.push_back({sum, part});
  }
  te::Tensor cf = passes.back().second;
  te::Tensor c = exact ? cf : crop(cf, {m, n}, "C");

  // pack_w 2, 3: each column panel of W is packed just before the row tiles that read it, into
  // a panel-sized local buffer that stays in cache (no pass over a packed copy of all of W).
  const bool fused = sch.pack_w >= 2;
  if (fused && nblocks > 1)
    throw UserError("dense schedule: pack_w " + std::to_string(sch.pack_w) +
                    " (W panels packed in the kernel) needs one K pass, not k_block " +
                    std::to_string(sch.k_block) + " of " + std::to_string(kq) + " steps");
  if (fused && mb == 0 && sch.parallel && sch.parallel_axis == 1)
    throw UserError("dense schedule: pack_w " + std::to_string(sch.pack_w) +
                    " (W panels packed in the kernel) needs the column panels outside the row "
                    "tiles: parallel_axis 0, or row blocks");
  te::Schedule s({c});
  te::IterVar panel_loop;
  for (auto& [sum, part] : passes) {
    te::Tensor local;
    if (chained) {
      s.set_scope(sum, ir::Scope::kLocal);
      local = sum;
    } else {
      local = s.cache_write(part, ir::Scope::kLocal);
    }
    panel_loop = schedule_pass(s, part, local, sch, mb);
  }
  if (fused) {
    s.set_scope(wp, ir::Scope::kLocal);
    s[wp].compute_at(s[cf], panel_loop);
    if (quads) s[comp].compute_at(s[cf], panel_loop);
  }
  te::Stage& sw = s[wp];
  if (sch.parallel && !fused) sw.set_kind(sw.axes()[0], ForKind::kParallel);
  if (sch.pack_w % 2 == 1) {
    sw.reorder({sw.axes()[0], sw.axes()[2], sw.axes()[1]});  // a panel's rows, read along K
  } else {
    sw.set_kind(sw.axes()[2], ForKind::kVectorized);
  }
  if (ap.get() != nullptr) {
    te::Stage& sa = s[ap];
    if (sch.parallel) sa.set_kind(sa.axes()[0], ForKind::kParallel);
    if (sch.pack_a && mr > 1) sa.set_kind(sa.axes()[2], ForKind::kVectorized);
  }
  if (quads) {
    te::Stage& sk = s[comp];
    auto [o, i] = sk.split(sk.axes()[0], nr);  // i: one panel's columns, contiguous
    sk.reorder({o, sk.reduce_axes()[0], i});
    sk.set_kind(i, ForKind::kVectorized);
  }
  if (!exact) schedule_elementwise(s[c], 16);
  std::vector<te::Tensor> inputs{a, w};
  return finish(std::string("dense_") + ir::dtype_name(dtype), s, inputs, {c},
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

namespace {
int64_t conv_tile_cols(const Conv2dShape& sh, const ConvSchedule& sch) {
  return sch.ow > 0 ? sch.ow : (sh.ow() % 7 == 0 ? 7 : 6);
}
}  // namespace

void validate(const Conv2dShape& sh, DType dtype, const ConvSchedule& sch) {
  auto bad = [](const std::string& what) { throw UserError("conv2d schedule: " + what); };
  const int64_t r = conv_tile_cols(sh, sch);
  if (r < 1 || r > 16)
    throw UserError("conv2d: register tile of " + std::to_string(r) + " columns (at most 16)");
  const int64_t nob = (sh.o + kConvOutBlock - 1) / kConvOutBlock;
  if (sch.oc_blocks < 1 || nob % sch.oc_blocks != 0)
    bad("oc_blocks " + std::to_string(sch.oc_blocks) + " does not divide the " +
        std::to_string(nob) + " output-channel blocks");
  if (r * sch.oc_blocks > 32)
    bad("register tile " + std::to_string(r) + "x" + std::to_string(sch.oc_blocks) +
        " blocks has more than 32 accumulators");
  if (sch.reduce_order != 0 && sch.reduce_order != 1)
    bad("reduce_order " + std::to_string(sch.reduce_order) + " (0 or 1)");
  const int64_t cb = conv_in_block(sh.c);
  const int64_t cbk = dtype == DType::kInt8 ? (cb + 1) / 2 : cb;
  if (sch.ci_unroll < 1 || cbk % sch.ci_unroll != 0)
    bad("ci_unroll " + std::to_string(sch.ci_unroll) + " does not divide the channel block of " +
        std::to_string(cbk));
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
  validate(sh, dtype, sch);
  const int64_t r = conv_tile_cols(sh, sch);
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
  auto [bo, bi] = sy.split(axes[1], sch.oc_blocks);
  // Outer loops: batch, channel-block tiles and output rows (in either order), column tiles;
  // then the tile: channel blocks, columns (unrolled), 16 channels (vectorized).
  if (sch.rows_outer) {
    sy.reorder({axes[0], axes[2], bo, xo, bi, xi, axes[4]});
  } else {
    sy.reorder({axes[0], bo, axes[2], xo, bi, xi, axes[4]});
  }
  if (sch.parallel) sy.set_kind(nob / sch.oc_blocks >= 2 ? bo : axes[2], ForKind::kParallel);
  sy.set_kind(bi, ForKind::kUnrolled);
  sy.set_kind(xi, ForKind::kUnrolled);
  sy.set_kind(axes[4], ForKind::kVectorized);
  {
    te::Stage& st = s[local];
    st.compute_at(sy, xo);
    const auto& la = st.axes();
    const auto& lr = st.reduce_axes();  // rc, ry, rx, ri
    std::vector<te::IterVar> order;
    if (sch.reduce_order == 0) {
      order = {lr[0], lr[1], lr[2]};
    } else {
      order = {lr[1], lr[2], lr[0]};
    }
    te::IterVar ri = lr[3];
    if (sch.ci_unroll > 1) {
      auto [rio, rii] = st.split(ri, sch.ci_unroll);
      order.push_back(rio);
      ri = rii;
      st.set_kind(rii, ForKind::kUnrolled);
    }
    order.push_back(ri);
    for (int d : {1, 3, 4}) order.push_back(la[d]);
    st.reorder(order);
    st.set_kind(la[1], ForKind::kUnrolled);
    st.set_kind(la[3], ForKind::kUnrolled);
    st.set_kind(la[4], ForKind::kVectorized);
  }
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
