// The GEMM schedules of the GPU operators; see gemm.h.
//
// simt (float32) and dp4a (int8, four bytes per int32): the thread block computes a
// block_m x block_n tile of C; each thread a thread_m x thread_n register tile (a local-scope
// stage over a domain padded to whole block tiles, so its loops carry no guards); the
// reduction advances block_k at a time through shared tiles of A and B that all threads of
// the block fill together (fused, split by the thread counts, bound to threadIdx; vector
// loads when the shape is a multiple of the tiles), double-buffered.
//
// tensor-core (float16 or int8): C is computed in 16x16 blocks into a blocked workspace
// Cb[MB, NB, 16, 16]: block tile 64x64 by four warps (threadIdx.y, .z), each warp 2x2
// accumulator fragments; per 16-deep reduction step the block stages A and B blocks in
// shared memory (double-buffered) and each warp loads its matrix_a / matrix_b fragments
// from there; a last element-wise kernel reads Cb into the plain output.
#include "compiler/ops/gpu/gemm.h"

#include "compiler/ops/gpu/flat.h"
#include "compiler/ir/intrinsics.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/op_args.h"
#include "compiler/ops/tiling.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::gpu {

using ir::Expr;
using te::ThreadAxis;

namespace {

// Four int8 values as the bytes of an int32 (the first in the low byte), for dp4a.
Expr pack4(const Expr& b0, const Expr& b1, const Expr& b2, const Expr& b3) {
  const DType i32 = DType::kInt32;
  auto byte = [&](const Expr& b) { return ir::floormod(ir::cast(i32, b), ir::imm(256, i32)); };
  return ir::add(ir::add(byte(b0), ir::mul(byte(b1), ir::imm(256, i32))),
                 ir::add(ir::mul(byte(b2), ir::imm(65536, i32)),
                         ir::mul(ir::cast(i32, b3), ir::imm(16777216, i32))));
}

// A shared-tile copy stage: its loops fused, `vec` elements per vector access (1: none),
// then spread over the threads (x innermost).
void cooperative(te::Stage& st, int64_t vec, int64_t tx, int64_t ty, int64_t tz) {
  te::IterVar f = st.axes()[0];
  for (size_t d = 1; d < st.axes().size(); ++d) f = st.fuse(f, st.axes()[d]);
  if (vec > 1) {
    auto [o, v] = st.split(f, vec);
    st.set_kind(v, ir::ForKind::kVectorized);
    f = o;
  }
  auto [o1, x] = st.split(f, tx);
  st.bind(x, ThreadAxis::kThreadX);
  if (ty > 1) {
    auto [o2, y] = st.split(o1, ty);
    st.bind(y, ThreadAxis::kThreadY);
    o1 = o2;
  }
  if (tz > 1) {
    auto [o3, z] = st.split(o1, tz);
    st.bind(z, ThreadAxis::kThreadZ);
  }
}

// The operator's output stage when it is not C itself.
te::Tensor output_of(const GemmSpec& spec, DType out_dtype,
                     const std::function<Expr(const Expr&, const Expr&)>& c_at) {
  return te::compute(
      spec.out_shape, out_dtype, [&](const std::vector<Expr>& i) { return spec.out(i, c_at); },
      spec.name);
}

LoweredOp simt(const GemmSpec& spec, const GemmSchedule& sch, bool dp4a) {
  const DType acc = accumulator_of(spec.in);
  const int64_t tm = sch.thread_m, tn = sch.thread_n, bk = sch.block_k;
  if (sch.block_m % tm != 0 || sch.block_n % tn != 0) {
    throw UserError(spec.name + ": block tile " + std::to_string(sch.block_m) + "x" +
                    std::to_string(sch.block_n) + " is not a multiple of the thread tile " +
                    std::to_string(tm) + "x" + std::to_string(tn));
  }
  // A block tile no larger than the (thread-tile-rounded) output: every loop bound to a thread
  // axis then has that axis's extent, so no barrier ends up under a guard.
  const int64_t bm = std::min(sch.block_m, round_up(spec.m, tm));
  const int64_t bn = std::min(sch.block_n, round_up(spec.n, tn));
  const int64_t thr_y = bm / tm, thr_x = bn / tn;
  const int64_t mp = round_up(spec.m, bm), np = round_up(spec.n, bn);
  const int64_t kr = dp4a ? ceil_div(spec.k, 4) : spec.k;  // reduction extent
  const int64_t kp = round_up(kr, bk);
  const bool pad_m = mp != spec.m, pad_n = np != spec.n,
             pad_k = dp4a ? kp * 4 != spec.k : kp != spec.k;
  const DType vt = dp4a ? DType::kInt32 : spec.in;
  auto view = [&](const std::function<Expr(const Expr&, const Expr&)>& f, int64_t rows,
                  int64_t rows_p, bool pad_rows, const char* name) {
    return te::compute(
        {rows_p, kp}, vt,
        [&, rows, pad_rows](const std::vector<Expr>& i) {
          if (!dp4a) return guarded(f, i[0], i[1], rows, spec.k, pad_rows, pad_k, vt);
          Expr q = ir::mul(i[1], ir::imm(4));
          Expr b[4];
          for (int t = 0; t < 4; ++t)
            b[t] = guarded(f, i[0], ir::add(q, ir::imm(t)), rows, spec.k, pad_rows, pad_k, spec.in);
          return pack4(b[0], b[1], b[2], b[3]);
        },
        name);
  };
  te::Tensor av = view(spec.a, spec.m, mp, pad_m, dp4a ? "A.quads" : "A.view");
  te::Tensor bv = view(spec.b, spec.n, np, pad_n, dp4a ? "B.quads" : "B.view");
  const te::IterVar r = te::reduce_axis(kp, "k");
  te::Tensor cp = te::compute_reduce(
      {mp, np}, acc,
      [&](const std::vector<Expr>& i) {
        Expr x = av({i[0], ir::ref(r->var)}), y = bv({i[1], ir::ref(r->var)});
        return te::sum(dp4a ? ir::dot4_i8(x, y) : ir::mul(x, y), {r});
      },
      "C.tile");
  const bool separate_out = static_cast<bool>(spec.out);
  te::Tensor c = te::compute(
      {spec.m, spec.n}, acc, [&](const std::vector<Expr>& i) { return cp(i); },
      separate_out ? "C" : spec.name);
  te::Tensor out = separate_out ? output_of(spec, acc,
                                            [&](const Expr& i, const Expr& j) {
                                              return c({i, j});
                                            })
                                : c;

  te::Schedule s({out});
  const te::Tensor as = s.cache_read(av, ir::Scope::kShared, {cp});
  const te::Tensor bs = s.cache_read(bv, ir::Scope::kShared, {cp});
  s.compute_inline(av);
  s.compute_inline(bv);
  s.set_scope(cp, ir::Scope::kLocal);

  te::Stage& sc = s[c];
  auto [io, ii] = sc.split(sc.axes()[0], bm);
  auto [jo, ji] = sc.split(sc.axes()[1], bn);
  auto [ty, ti] = sc.split(ii, tm);
  auto [tx, tj] = sc.split(ji, tn);
  sc.reorder({io, jo, ty, tx, ti, tj});
  sc.bind(io, ThreadAxis::kBlockY);
  sc.bind(jo, ThreadAxis::kBlockX);
  sc.bind(ty, ThreadAxis::kThreadY);
  sc.bind(tx, ThreadAxis::kThreadX);
  sc.set_kind(ti, ir::ForKind::kUnrolled);
  sc.set_kind(tj, ir::ForKind::kUnrolled);

  te::Stage& st = s[cp];
  st.compute_at(sc, tx);
  auto [ro, ri] = st.split(st.reduce_axes()[0], bk);
  st.reorder({ro, ri, st.axes()[0], st.axes()[1]});
  st.set_kind(st.axes()[0], ir::ForKind::kUnrolled);
  st.set_kind(st.axes()[1], ir::ForKind::kUnrolled);

  // Vector loads of 16 bytes where the tiles are plain copies of contiguous rows.
  const int64_t vec_a = !dp4a && !pad_m && !pad_k && spec.a_contiguous && bk % 4 == 0 ? 4 : 1;
  const int64_t vec_b = !dp4a && !pad_n && !pad_k && spec.b_contiguous && bk % 4 == 0 ? 4 : 1;
  for (auto [t, vec] : {std::pair{as, vec_a}, std::pair{bs, vec_b}}) {
    te::Stage& cs = s[t];
    cs.compute_at(st, ro);
    if (sch.double_buffer) cs.double_buffer();
    cooperative(cs, vec, thr_x, thr_y, 1);
  }
  if (separate_out) schedule_flat(s, out);
  return lower_op(spec.name, s, spec.inputs, {out}, spec.ops, dp4a ? "dp4a" : "simt");
}

LoweredOp tensor_core(const GemmSpec& spec, const GemmSchedule& sch) {
  const DType acc = accumulator_of(spec.in);
  constexpr int64_t t = ir::kWmmaTile;
  // Block tile 64x64: 4 warps of 2x2 fragments.
  const int64_t fb_m = 4, fb_n = 4, warps_m = 2, warps_n = 2;
  const int64_t mb = round_up(ceil_div(spec.m, t), fb_m), nb = round_up(ceil_div(spec.n, t), fb_n);
  const int64_t kb = ceil_div(spec.k, t);
  const bool pad_m = mb * t != spec.m, pad_n = nb * t != spec.n, pad_k = kb * t != spec.k;
  auto view = [&](const std::function<Expr(const Expr&, const Expr&)>& f, int64_t rows,
                  int64_t blocks, bool pad_rows, const char* name) {
    return te::compute(
        {blocks, kb, t, t}, spec.in,
        [&, rows, pad_rows](const std::vector<Expr>& i) {
          return guarded(f, ir::add(ir::mul(i[0], ir::imm(t)), i[2]),
                         ir::add(ir::mul(i[1], ir::imm(t)), i[3]), rows, spec.k, pad_rows, pad_k,
                         spec.in);
        },
        name);
  };
  te::Tensor ab = view(spec.a, spec.m, mb, pad_m, "A.blocks");
  te::Tensor bb = view(spec.b, spec.n, nb, pad_n, "B.blocks");
  const te::IterVar rk = te::reduce_axis(kb, "kb");
  const te::IterVar rt = te::reduce_axis(t, "kk");
  te::Tensor cb = te::compute_reduce(
      {mb, nb, t, t}, acc,
      [&](const std::vector<Expr>& i) {
        Expr x = ab({i[0], ir::ref(rk->var), i[2], ir::ref(rt->var)});
        Expr y = bb({i[1], ir::ref(rk->var), i[3], ir::ref(rt->var)});
        return te::sum(ir::mul(ir::cast(acc, x), ir::cast(acc, y)), {rk, rt});
      },
      "C.blocks");
  auto c_at = [&](const Expr& i, const Expr& j) {
    const Expr tt = ir::imm(t);
    return cb({ir::floordiv(i, tt), ir::floordiv(j, tt), ir::floormod(i, tt), ir::floormod(j, tt)});
  };
  te::Tensor out =
      spec.out ? output_of(spec, acc, c_at)
               : te::compute(
                     {spec.m, spec.n}, acc,
                     [&](const std::vector<Expr>& i) { return c_at(i[0], i[1]); }, spec.name);

  te::Schedule s({out});
  const te::Tensor cacc = s.cache_write(cb, ir::Scope::kAcc);
  const te::Tensor as = s.cache_read(ab, ir::Scope::kShared, {cacc});
  const te::Tensor af = s.cache_read(as, ir::Scope::kInp, {cacc});
  const te::Tensor bs = s.cache_read(bb, ir::Scope::kShared, {cacc});
  const te::Tensor bf = s.cache_read(bs, ir::Scope::kWgt, {cacc});
  s.compute_inline(ab);
  s.compute_inline(bb);

  te::Stage& sc = s[cb];
  const auto axes = sc.axes();
  auto [bm_, mi] = sc.split(axes[0], fb_m);
  auto [bn_, ni] = sc.split(axes[1], fb_n);
  auto [wm, fm] = sc.split(mi, fb_m / warps_m);
  auto [wn, fn] = sc.split(ni, fb_n / warps_n);
  sc.reorder({bm_, bn_, wm, wn, fm, fn, axes[2], axes[3]});
  sc.bind(bm_, ThreadAxis::kBlockY);
  sc.bind(bn_, ThreadAxis::kBlockX);
  sc.bind(wm, ThreadAxis::kThreadY);
  sc.bind(wn, ThreadAxis::kThreadZ);

  te::Stage& sa = s[cacc];
  sa.compute_at(sc, wn);
  const auto ax = sa.axes();
  const auto rx = sa.reduce_axes();
  sa.reorder({rx[0], ax[0], ax[1], ax[2], ax[3], rx[1]});
  sa.tensorize(ax[2],
               te::GemmIntrinsic{t, t, t, ir::Intrinsic::kWmmaMma, ir::Intrinsic::kWmmaFill});

  const int64_t esize = ir::dtype_bits(spec.in) / 8;
  for (auto [sh, contiguous, pad_rows] :
       {std::tuple{as, spec.a_contiguous, pad_m}, std::tuple{bs, spec.b_contiguous, pad_n}}) {
    te::Stage& cs = s[sh];
    cs.compute_at(sa, rx[0]);
    if (sch.double_buffer) cs.double_buffer();
    const int64_t vec = contiguous && !pad_rows && !pad_k ? 16 / esize : 1;
    cooperative(cs, vec, 32, warps_m, warps_n);
  }
  s[af].compute_at(sa, rx[0]);
  s[bf].compute_at(sa, rx[0]);
  schedule_flat(s, out);
  return lower_op(spec.name, s, spec.inputs, {out}, spec.ops, "tensor-core");
}

}  // namespace

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

GemmPath parse_gemm_path(const std::string& name, const std::string& where) {
  for (GemmPath p : {GemmPath::kAuto, GemmPath::kSimt, GemmPath::kTensorCore, GemmPath::kDp4a})
    if (name == gemm_path_name(p)) return p;
  throw UserError(where + " must be auto, simt, tensor-core or dp4a, not '" + name + "'");
}

GemmPath resolve_path(const GemmSpec& spec, const GemmSchedule& s) {
  GemmPath p = s.path;
  if (p == GemmPath::kAuto) {
    if (spec.in == DType::kFloat32)
      p = GemmPath::kSimt;
    else if (spec.in == DType::kFloat16)
      p = GemmPath::kTensorCore;
    // int8: tensor cores unless the reduction is shorter than one 16-deep step.
    else
      p = spec.k >= 16 ? GemmPath::kTensorCore : GemmPath::kDp4a;
  }
  auto bad = [&](const char* why) {
    throw UserError(spec.name + ": the " + gemm_path_name(p) + " path " + why + ", not " +
                    ir::dtype_name(spec.in));
  };
  if (p == GemmPath::kSimt && spec.in != DType::kFloat32) bad("computes float32");
  if (p == GemmPath::kDp4a && spec.in != DType::kInt8) bad("computes int8");
  if (p == GemmPath::kTensorCore && spec.in == DType::kFloat32)
    bad("computes float16 or int8 (tensor cores)");
  return p;
}

LoweredOp gemm(const GemmSpec& spec, const GemmSchedule& s) {
  for (auto [what, v] : {std::pair{"M", spec.m}, {"N", spec.n}, {"K", spec.k}}) {
    if (v <= 0) {
      throw UserError(spec.name + ": " + what + " is " + std::to_string(v) + ", must be positive");
    }
  }
  if (s.block_m <= 0 || s.block_n <= 0 || s.block_k <= 0 || s.thread_m <= 0 || s.thread_n <= 0)
    throw UserError(spec.name + ": tile sizes must be positive");
  switch (resolve_path(spec, s)) {
    case GemmPath::kTensorCore:
      return tensor_core(spec, s);
    case GemmPath::kDp4a:
      return simt(spec, s, true);
    default:
      return simt(spec, s, false);
  }
}

}  // namespace weft::compiler::ops::gpu
