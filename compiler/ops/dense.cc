// The dense operator and its knob chooser; see dense.h.
#include "compiler/ops/dense.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/ops/tiling.h"
#include "compiler/te/intrinsics.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops {

namespace {

using ir::DType;


struct Blocks {
  int64_t m, n, k;  // padded block counts
};

Blocks padded_blocks(const isa::Layout& l, const DenseShape& s, const DenseKnobs& k) {
  const auto& c = l.config;
  return {round_up(ceil_div(s.m, c.batch()), k.tile_m * (k.vthread_axis == 'm' ? k.vthreads : 1)),
          round_up(ceil_div(s.n, c.block_out()),
                   k.tile_n * (k.vthread_axis == 'n' ? k.vthreads : 1)),
          round_up(ceil_div(s.k, c.block_in()), k.tile_k)};
}

// "" when DRAM offsets of the padded operator (in blocks) fit the 32-bit address fields.
std::string dram_error(const Blocks& b) {
  if (std::max({b.m, b.n, b.k}) * std::max(b.k, b.n) < (int64_t{1} << 31)) return "";
  return "dense: the padded operator (" + std::to_string(b.m) + "x" + std::to_string(b.n) + "x" +
         std::to_string(b.k) + " blocks) is too large for the 32-bit DRAM addresses";
}

void check_shape(const DenseShape& s) {
  const int64_t limit = int64_t{1} << 20;
  for (auto [v, name] : {std::pair{s.m, "M"}, {s.n, "N"}, {s.k, "K"}}) {
    if (v < 1 || v > limit) {
      throw UserError("dense: " + std::string(name) + " = " + std::to_string(v) +
                      " is out of range (1 to " + std::to_string(limit) + ")");
    }
  }
}

}  // namespace

std::string DenseKnobs::describe() const {
  return "tile_m=" + std::to_string(tile_m) + " tile_n=" + std::to_string(tile_n) +
         " tile_k=" + std::to_string(tile_k) + " vthreads=" + std::to_string(vthreads) +
         " vthread_axis=" + std::string(1, vthread_axis);
}

std::string dense_knobs_error(const isa::Layout& l, const DenseShape& s, const DenseKnobs& k,
                              bool channel_shifts) {
  if (k.tile_m < 1 || k.tile_n < 1 || k.tile_k < 1)
    return "dense knobs: tiles must be at least one block (" + k.describe() + ")";
  if (k.vthreads < 1 || k.vthreads > 64)
    return "dense knobs: vthreads = " + std::to_string(k.vthreads) + " is out of range (1 to 64)";
  if (k.vthread_axis != 'm' && k.vthread_axis != 'n')
    return std::string("dense knobs: vthread_axis must be 'm' or 'n', not '") + k.vthread_axis +
           "'";
  // Every thread holds its own accumulator, input and weight tiles.
  struct Need {
    const char* buffer;
    int64_t blocks, depth;
  };
  const int64_t shift_tile = channel_shifts ? k.tile_n : 0;
  for (const Need& n : {Need{"ACC", k.tile_m * k.tile_n + shift_tile, l.acc_depth},
                        Need{"INP", k.tile_m * k.tile_k, l.inp_depth},
                        Need{"WGT", k.tile_n * k.tile_k, l.wgt_depth}}) {
    if (n.blocks * k.vthreads > n.depth) {
      return "dense knobs (" + k.describe() + "): the " + n.buffer + " tiles need " +
             std::to_string(n.blocks) + " blocks x " + std::to_string(k.vthreads) +
             " threads = " + std::to_string(n.blocks * k.vthreads) + " blocks, but the " +
             n.buffer + " buffer of " + l.config.name + " holds " + std::to_string(n.depth);
    }
  }
  // A micro-op kernel enumerates the innermost tile loop (tile_n uops), and the DMA fields
  // must hold the tile rows and strides.
  if (k.tile_n > l.uop_depth)
    return "dense knobs: tile_n = " + std::to_string(k.tile_n) +
           " micro-ops exceed the micro-op buffer (" + std::to_string(l.uop_depth) + ")";
  return dram_error(padded_blocks(l, s, k));
}

void check_dense_knobs(const isa::Layout& l, const DenseShape& s, const DenseKnobs& k,
                       bool channel_shifts) {
  check_shape(s);
  if (std::string e = dense_knobs_error(l, s, k, channel_shifts); !e.empty()) throw UserError(e);
}

DenseKnobs choose_dense_knobs(const isa::Layout& l, const isa::Platform& p, const DenseShape& s,
                              int64_t vthreads, bool channel_shifts) {
  check_shape(s);
  const auto& c = l.config;
  const double bus = p.axi_data_bits / 8.0;
  const int64_t inp_b = l.inp_elem_bytes, wgt_b = l.wgt_elem_bytes, out_b = l.out_elem_bytes;
  // shift, max, min (on the STORE with the store_requant option)
  const int epilogue_ops = l.config.options.has(isa::HwOption::kStoreRequant) ? 0 : 3;
  auto pow2_up_to = [](int64_t n, int64_t cap) {
    std::vector<int64_t> v;
    for (int64_t t = 1; t <= cap; t *= 2) {
      v.push_back(t);
      if (t >= n) break;
    }
    return v;
  };
  const int64_t bm = ceil_div(s.m, c.batch()), bn = ceil_div(s.n, c.block_out()),
                bk = ceil_div(s.k, c.block_in());
  DenseKnobs best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (char axis : {'m', 'n'}) {
    for (int64_t tm : pow2_up_to(bm, l.acc_depth)) {
      for (int64_t tn : pow2_up_to(bn, std::min(l.acc_depth, l.uop_depth))) {
        for (int64_t tk : pow2_up_to(bk, l.inp_depth)) {
          DenseKnobs k{tm, tn, tk, vthreads, axis};
          // (larger tiles may also pad past the 32-bit DRAM offsets)
          if (!dense_knobs_error(l, s, k, channel_shifts).empty()) continue;
          const Blocks b = padded_blocks(l, s, k);
          const double tiles = double(b.m / tm) * double(b.n / tn), steps = double(b.k / tk);
          // Per reduction step: one GEMM block per cycle; the two tile loads over the bus,
          // each paying the read latency once.
          const double compute = double(tm * tn * tk);
          const double load = tk * (tm * inp_b + tn * wgt_b) / bus + 2.0 * p.read_latency;
          // reset + ALU passes (a per-channel shift: one more, two cycles a micro-op)
          const double tail = tm * tn * (1.0 + epilogue_ops + (channel_shifts ? 2.0 : 0.0));
          const double store = tm * tn * c.batch() * c.block_out() * out_b / bus / c.batch() +
                               p.write_latency;
          // With several threads, loads hide under compute only with some slack: a step
          // whose loads take nearly as long as its compute stalls on every jitter, so loads
          // count 1.25 times. The ALU passes and resets share the compute module.
          const double tile_time = vthreads > 1
                                       ? std::max(steps * std::max(compute, 1.25 * load) + tail,
                                                  store)
                                       : steps * (compute + load) + tail + store;
          const double cost = tiles * tile_time;
          if (cost < best_cost * 0.999) {
            best_cost = cost;
            best = k;
          }
        }
      }
    }
  }
  if (!std::isfinite(best_cost)) {
    // too large even unpadded by tiles
    if (std::string e = dram_error(padded_blocks(l, s, DenseKnobs{})); !e.empty())
      throw UserError(e);
    throw UserError("dense: no tiling fits the buffers of " + c.name + " with " +
                    std::to_string(vthreads) + " virtual threads");
  }
  return best;
}

Dense make_dense(const isa::Layout& l, const DenseShape& shape, const DenseKnobs& knobs,
                 const DenseEpilogue& epilogue) {
  check_dense_knobs(l, shape, knobs, epilogue.channel_shifts);
  if (epilogue.shift < 0 || epilogue.shift > 31) {
    throw UserError("dense: shift = " + std::to_string(epilogue.shift) +
                    " is out of range (0 to 31)");
  }
  const te::GemmIntrinsic g = te::gemm_intrinsic(l);
  Dense d;
  d.shape = shape;
  d.knobs = knobs;
  d.epilogue = epilogue;
  const Blocks b = padded_blocks(l, shape, knobs);
  d.mb = b.m;
  d.nb = b.n;
  d.kb = b.k;
  d.batch = g.batch;
  d.block_in = g.block_in;
  d.block_out = g.block_out;

  d.a = te::placeholder({b.m, b.k, g.batch, g.block_in}, DType::kInt8, "A");
  d.w = te::placeholder({b.n, b.k, g.block_out, g.block_in}, DType::kInt8, "W");
  const te::IterVar rko = te::reduce_axis(b.k, "ko"), rki = te::reduce_axis(g.block_in, "ki");
  const te::Tensor a = d.a, w = d.w;
  d.c = te::compute_reduce(
      {b.m, b.n, g.batch, g.block_out}, DType::kInt32,
      [&](const std::vector<ir::Expr>& i) {
        const ir::Expr k0 = ir::ref(rko->var), k1 = ir::ref(rki->var);
        return te::sum(ir::mul(ir::cast(DType::kInt32, a({i[0], k0, i[2], k1})),
                               ir::cast(DType::kInt32, w({i[1], k0, i[3], k1}))),
                       {rko, rki});
      },
      "C");
  const te::Tensor c = d.c;
  // --- per-channel shifts (epilogue.channel_shifts): S widened into the accumulator ---
  te::Tensor s32;
  if (epilogue.channel_shifts) {
    d.shifts = te::placeholder({b.n, g.batch, g.block_out}, DType::kInt8, "S");
    const te::Tensor st = d.shifts;
    s32 = te::compute({b.n, g.batch, g.block_out}, DType::kInt32,
                      [&](const std::vector<ir::Expr>& i) { return ir::cast(DType::kInt32, st(i)); },
                      "S.acc");
  }
  d.d = te::compute(
      {b.m, b.n, g.batch, g.block_out}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        ir::Expr v = c(i);
        if (epilogue.shift > 0) v = ir::shr(v, ir::imm(epilogue.shift, DType::kInt32));
        if (epilogue.channel_shifts) v = ir::shr(v, s32({i[1], i[2], i[3]}));
        v = ir::max(v, ir::imm(epilogue.relu ? 0 : -128, DType::kInt32));
        v = ir::min(v, ir::imm(127, DType::kInt32));
        return ir::cast(DType::kInt8, v);
      },
      "D");

  d.schedule = std::make_unique<te::Schedule>(std::vector<te::Tensor>{d.d});
  te::Schedule& s = *d.schedule;
  s.set_scope(d.c, ir::Scope::kAcc);
  const te::Tensor a_inp = s.cache_read(d.a, ir::Scope::kInp, {d.c});
  const te::Tensor w_wgt = s.cache_read(d.w, ir::Scope::kWgt, {d.c});
  te::Stage& out = s[d.d];
  auto [moo, moi] = out.split(out.axes()[0], knobs.tile_m);
  auto [noo, noi] = out.split(out.axes()[1], knobs.tile_n);
  out.reorder({moo, noo, moi, noi});
  te::IterVar attach = noo;
  if (knobs.vthreads > 1) {
    // The thread loop goes outermost; each thread takes a contiguous range of tiles.
    const te::IterVar& axis = knobs.vthread_axis == 'm' ? moo : noo;
    auto [vt, rest] = out.split(axis, axis->extent / knobs.vthreads);
    out.set_kind(vt, ir::ForKind::kVirtualThread);
    if (knobs.vthread_axis == 'm') {
      out.reorder({vt, rest, noo});
    } else {
      out.reorder({vt, moo, rest});
      attach = rest;
    }
  }
  te::Stage& acc = s[d.c];
  acc.compute_at(out, attach);
  auto [koo, koi] = acc.split(acc.reduce_axes()[0], knobs.tile_k);
  const auto ax = acc.axes();
  acc.reorder({koo, koi, ax[0], ax[1], ax[2], ax[3], acc.reduce_axes()[1]});
  acc.tensorize(ax[2], g);
  s[a_inp].compute_at(acc, koo);
  s[w_wgt].compute_at(acc, koo);
  s[a_inp].pragma(s[a_inp].axes()[0], "dma_copy");
  s[w_wgt].pragma(s[w_wgt].axes()[0], "dma_copy");
  if (epilogue.channel_shifts) {
    s.set_scope(s32, ir::Scope::kAcc);
    s[s32].compute_at(out, attach);
    s[s32].pragma(s[s32].axes()[0], "dma_copy");
  }
  out.pragma(moi, "dma_copy");
  return d;
}

}  // namespace weft::compiler::ops
