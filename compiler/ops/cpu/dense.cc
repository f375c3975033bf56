// The CPU dense operator and its schedule; see dense.h.
#include "compiler/ops/cpu/dense.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include "compiler/ops/cpu/gemv.h"
#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/op_args.h"
#include "compiler/ops/tiling.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;

namespace {

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
    bad("lanes " + std::to_string(s.lanes) + " do not divide the tile's " + std::to_string(s.cols) +
        " columns");
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

LoweredOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const DenseSchedule& sch) {
  check_dtype(dtype, "dense", {DType::kFloat32, DType::kInt8});
  check_positive("dense", "M", m);
  check_positive("dense", "N", n);
  check_positive("dense", "K", k);
  validate(sch);
  // A matrix-vector product (N = 1, or M = 1) runs along K (gemv.h): a register tile would use
  // one lane of its vectors, or pack all of W for one row.
  if (gemv_applies(m, n, k, sch))
    return m == 1 ? gemv(n, k, dtype, sch.rows, sch.cols, /*vector_first=*/true)
                  : gemv(m, k, dtype, sch.rows, sch.cols);
  const DType acc = accumulator_of(dtype);
  const int64_t mr = sch.rows, nr = sch.cols;
  // Rows are padded to whole tiles, and to whole row blocks when blocked: blocks of at most
  // row_block rows, as many as that takes and of equal size, so that the last block is not
  // mostly padding (197 rows in blocks of 192 computed 384; as two blocks of 102, 204).
  const int64_t mt = round_up(m, mr);
  const int64_t mb =
      sch.row_block > 0 ? round_up(ceil_div(mt, ceil_div(mt, sch.row_block)), mr) : 0;
  const int64_t mp = round_up(m, mb > 0 ? mb : mr), np = round_up(n, nr);
  const bool exact = mp == m && np == n;
  const bool quads = dtype == DType::kInt8 && sch.k_pack == 4;
  const int64_t kq = dtype == DType::kInt8 ? (k + sch.k_pack - 1) / sch.k_pack : k;  // steps

  const te::Tensor a = te::placeholder({m, k}, dtype, "A");
  const te::Tensor w = te::placeholder({n, k}, dtype, "W");
  // W[j, q], zero past N (and past K).
  auto w_at = [&](const Expr& j, const Expr& q, bool k_guard) {
    return guarded(
        [&](const Expr& jj, const Expr& qq) {
          return w({jj, qq});
        },
        j, q, n, k, np != n, k_guard, dtype);
  };
  const bool odd = k % 2 != 0;
  // A's reduction step q of (clamped) row `row`: the element (fp32), or a pair of int8 as two
  // int16 halves (int8, for dot2_i16).
  const DType i32 = DType::kInt32;
  // Quad q of a row: A's bytes offset by +128 (unsigned), W's as they are; past K, zero values
  // (A's then read 128, against W's zero bytes).
  auto quad = [&](const std::function<Expr(const Expr&)>& at, const Expr& q, bool a_side) {
    return byte_quad(
        [&](int64_t b) {
          Expr idx = ir::add(ir::mul(q, ir::imm(4)), ir::imm(b));
          if (k % 4 == 0) return ir::cast(i32, at(idx));
          Expr v = ir::cast(i32, at(ir::min(idx, ir::imm(k - 1))));
          return ir::select(ir::lt(idx, ir::imm(k)), v, ir::imm(0, i32));
        },
        a_side);
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
    if (sch.pack_a) return ap({ir::floordiv(row, ir::imm(mr)), q, ir::floormod(row, ir::imm(mr))});
    if (dtype == DType::kInt8) return ap({clamp_row(row), q});
    return a({clamp_row(row), q});
  };
  // The reduction in K blocks of `kb` steps (one block without k_block): block b's partial
  // sums are a local tile (C.acc<b>) added to the previous block's result in the pass's
  // epilogue, so each pass over C reads only its block of A and of W's panels.
  const int64_t kb = sch.k_block > 0 && sch.k_block < kq ? sch.k_block : kq;
  const int64_t nblocks = (kq + kb - 1) / kb;
  // Edges: the tile sums cover the padded domain [mp, np]; the last pass stores only C's
  // [m, n] part of each tile (its split loops guarded, a masked vector store), so no pass
  // over a padded C has to crop it.
  const bool chained = nblocks > 1 || quads || !exact;
  const std::string c_name = "C";
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
          Expr wv = wp(
              {ir::floordiv(i[0], ir::imm(nr)), ir::ref(kc->var), ir::floormod(i[0], ir::imm(nr))});
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
        last ? std::vector<int64_t>{m, n} : std::vector<int64_t>{mp, np}, acc,
        [&](const std::vector<Expr>& i) {
          Expr v = sum(i);
          if (prev.get() != nullptr) v = ir::add(prev(i), v);
          if (last && quads) v = ir::sub(v, comp({i[1]}));
          return v;
        },
        last ? c_name : "C.part" + std::to_string(b));
    passes.push_back({sum, part});
  }
  const te::Tensor c = passes.back().second;

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
    s[wp].compute_at(s[c], panel_loop);
    if (quads) s[comp].compute_at(s[c], panel_loop);
  }
  te::Stage& sw = s[wp];
  if (sch.parallel && !fused) sw.set_kind(sw.axes()[0], ForKind::kParallel);
  if (sch.pack_w % 2 == 1 && dtype == DType::kFloat32) {
    // A panel's rows, read along K in pieces of 16 steps (one 64-byte line of a W row): the
    // piece's destination, 16 steps of the panel, stays in L1 while the panel's rows write
    // their columns of it. (Each row written along the whole K at once wrote one element per
    // line of a panel larger than L1: a miss per element. The int8 pairs and quads, built
    // from several bytes per step, measured 5-8% slower in pieces and keep whole rows.)
    auto [qo, qi] = sw.split(sw.axes()[1], 16);
    sw.reorder({sw.axes()[0], qo, sw.axes()[2], qi});
  } else if (sch.pack_w % 2 == 1) {
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
  std::vector<te::Tensor> inputs{a, w};
  return lower_op(std::string("dense_") + ir::dtype_name(dtype), s, inputs, {c},
                  2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
}

}  // namespace weft::compiler::ops::cpu
