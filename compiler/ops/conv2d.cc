// The conv2d operator, its knob checks and candidates; see conv2d.h.
#include "compiler/ops/conv2d.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "compiler/ops/tiling.h"
#include "compiler/te/intrinsics.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops {

namespace {

using ir::DType;


// Padded sizes for some knobs.
struct Padded {
  int64_t nb, icb, ocb, oh, ow;
  int64_t rows, cols;  // the input tile for one output tile
};

Padded padded(const isa::Layout& l, const Conv2dShape& s, const Conv2dKnobs& k) {
  const auto& c = l.config;
  Padded p;
  p.nb = round_up(ceil_div(s.n, c.batch()), k.tile_n);
  p.icb = round_up(ceil_div(s.ic, c.block_in()), k.tile_ic);
  p.ocb = round_up(ceil_div(s.oc, c.block_out()), k.tile_oc * (k.vthread_axis == 'o' ? k.vthreads : 1));
  p.oh = round_up(s.out_h(), k.tile_h * (k.vthread_axis == 'h' ? k.vthreads : 1));
  p.ow = round_up(s.out_w(), k.tile_w);
  p.rows = (k.tile_h - 1) * s.stride + s.k;
  p.cols = (k.tile_w - 1) * s.stride + s.k;
  return p;
}

// Micro-ops of the GEMM kernel: the two outermost of the non-unit loops (tile_ic, K, K,
// tile_oc, tile_h, tile_w) become hardware loops, the rest are enumerated.
int64_t gemm_uops(const Conv2dShape& s, const Conv2dKnobs& k) {
  std::vector<int64_t> loops;
  for (int64_t e : {k.tile_ic, s.k, s.k, k.tile_n, k.tile_oc, k.tile_h, k.tile_w}) {
    if (e > 1) loops.push_back(e);
  }
  int64_t n = 1;
  for (size_t i = 2; i < loops.size(); ++i) n *= loops[i];
  return n;
}

}  // namespace

std::string Conv2dShape::describe() const {
  return "N=" + std::to_string(n) + " H=" + std::to_string(h) + " W=" + std::to_string(w) +
         " IC=" + std::to_string(ic) + " OC=" + std::to_string(oc) + " K=" + std::to_string(k) +
         " stride=" + std::to_string(stride) + " pad=" + std::to_string(pad);
}

std::string Conv2dKnobs::describe() const {
  return "tile_h=" + std::to_string(tile_h) + " tile_w=" + std::to_string(tile_w) +
         " tile_ic=" + std::to_string(tile_ic) + " tile_oc=" + std::to_string(tile_oc) +
         " vthreads=" + std::to_string(vthreads) + " vthread_axis=" + std::string(1, vthread_axis) +
         (tile_n != 1 ? " tile_n=" + std::to_string(tile_n) : "");
}

void check_conv2d_shape(const Conv2dShape& s) {
  const int64_t limit = int64_t{1} << 16;
  struct V {
    int64_t v;
    const char* name;
    int64_t lo, hi;
  };
  for (const V& v : {V{s.n, "N", 1, limit}, V{s.h, "H", 1, limit}, V{s.w, "W", 1, limit},
                     V{s.ic, "IC", 1, limit}, V{s.oc, "OC", 1, limit}, V{s.k, "K", 1, 32},
                     V{s.stride, "stride", 1, 16}, V{s.pad, "pad", 0, 15}}) {
    if (v.v < v.lo || v.v > v.hi) {
      throw UserError("conv2d: " + std::string(v.name) + " = " + std::to_string(v.v) +
                      " is out of range (" + std::to_string(v.lo) + " to " + std::to_string(v.hi) +
                      ")");
    }
  }
  if (s.h + 2 * s.pad < s.k || s.w + 2 * s.pad < s.k) {
    throw UserError("conv2d: the " + std::to_string(s.k) + "x" + std::to_string(s.k) +
                    " kernel is larger than the padded " + std::to_string(s.h + 2 * s.pad) + "x" +
                    std::to_string(s.w + 2 * s.pad) + " input");
  }
}

std::string conv2d_knobs_error(const isa::Layout& l, const Conv2dShape& s, const Conv2dKnobs& k,
                               bool residual, bool channel_shifts) {
  if (k.tile_h < 1 || k.tile_w < 1 || k.tile_ic < 1 || k.tile_oc < 1 || k.tile_n < 1) {
    return "conv2d knobs: tiles must be at least 1 (" + k.describe() + ")";
  }
  if (k.tile_n > 1 && (s.out_h() != 1 || s.out_w() != 1)) {
    return "conv2d knobs (" + k.describe() + "): tile_n > 1 is for a 1x1 output (a dense layer)";
  }
  if (k.tile_n > ceil_div(s.n, l.config.batch())) {
    return "conv2d knobs (" + k.describe() + "): tile_n is larger than the " +
           std::to_string(ceil_div(s.n, l.config.batch())) + " batch blocks";
  }
  if (k.vthreads < 1 || k.vthreads > 64) {
    return "conv2d knobs: vthreads = " + std::to_string(k.vthreads) + " is out of range (1 to 64)";
  }
  if (k.vthread_axis != 'o' && k.vthread_axis != 'h') {
    return std::string("conv2d knobs: vthread_axis must be 'o' (output channels) or ") +
           "'h' (output rows), not '" + k.vthread_axis + "'";
  }
  if (k.tile_h > s.out_h() || k.tile_w > s.out_w()) {
    return "conv2d knobs (" + k.describe() + "): the tile is larger than the " +
           std::to_string(s.out_h()) + "x" + std::to_string(s.out_w()) + " output";
  }
  const Padded p = padded(l, s, k);
  if (p.rows <= s.pad || p.cols <= s.pad) {
    return "conv2d knobs (" + k.describe() + "): an input tile of " + std::to_string(p.rows) + "x" +
           std::to_string(p.cols) + " can lie entirely in the padding of " + std::to_string(s.pad);
  }
  // The output is rounded up to whole tiles, so the last tile of rows (or columns) can start
  // so far down that every input row it reads lies below the input: a tile of nothing but
  // padding. When pad < K its outputs are all discarded rounding, pure waste; in any case a
  // LOAD must read at least one element, so such tilings are refused here and never proposed.
  // Short of that, the rows it reads past the input are the LOAD's trailing padding, which
  // must fit the instruction's pad field (as the leading padding, the layer's pad, must).
  for (const auto& [what, tile, out, extent, size, pad_0, pad_1] :
       {std::tuple{"rows", k.tile_h, p.oh, s.h, p.rows, "y_pad_0", "y_pad_1"},
        std::tuple{"columns", k.tile_w, p.ow, s.w, p.cols, "x_pad_0", "x_pad_1"}}) {
    const int64_t first = (out - tile) * s.stride - s.pad;
    auto rounded = [&, what = what, out = out, size = size] {
      return "conv2d knobs (" + k.describe() + "): with the output rounded up to " +
             std::to_string(out) + " " + what + ", the last tile's input " + what + " [" +
             std::to_string(first) + ", " + std::to_string(first + size) + ")";
    };
    if (first >= extent) {
      return rounded() + " lie entirely in the padding beyond the input's " + std::to_string(extent) +
             " (a LOAD must read at least one element); " +
             "choose tiles that round the output up less";
    }
    const int64_t pad_0_max = l.mem.find(pad_0)->max_value();
    if (s.pad > pad_0_max) {
      return "conv2d: a padding of " + std::to_string(s.pad) + " " + what + " exceeds the LOAD's " +
             pad_0 + " field (at most " + std::to_string(pad_0_max) + " on " + l.config.name + ")";
    }
    const int64_t pad_1_max = l.mem.find(pad_1)->max_value();
    if (first + size - extent > pad_1_max) {
      return rounded() + " reach " + std::to_string(first + size - extent) + " past the input's " +
             std::to_string(extent) + ", more padding than the LOAD's " + pad_1 + " field holds (" +
             std::to_string(pad_1_max) + " on " + l.config.name +
             "); choose tiles that round the output up less";
    }
  }
  struct Need {
    const char* buffer;
    int64_t blocks, depth;
  };
  // output tile and bias (and the residual tile)
  const int64_t acc = k.tile_n * k.tile_oc * k.tile_h * k.tile_w * (residual ? 2 : 1) + k.tile_oc +
                      (channel_shifts ? k.tile_oc : 0);  // per-channel shift tile
  for (const Need& n :
       {Need{"ACC", acc, l.acc_depth},
        Need{"INP", k.tile_n * k.tile_ic * p.rows * p.cols, l.inp_depth},
        Need{"WGT", k.tile_oc * k.tile_ic * s.k * s.k, l.wgt_depth}}) {
    if (n.blocks * k.vthreads > n.depth) {
      return "conv2d knobs (" + k.describe() + "): the " + n.buffer + " tiles need " +
             std::to_string(n.blocks) + " blocks x " + std::to_string(k.vthreads) +
             " threads = " + std::to_string(n.blocks * k.vthreads) + " blocks, but the " +
             n.buffer + " buffer of " + l.config.name + " holds " + std::to_string(n.depth);
    }
  }
  // Every thread's GEMM kernel and its reset and ALU kernels must be resident together.
  const int64_t uops = (gemm_uops(s, k) + (channel_shifts ? 6 : 5) * k.tile_w) * k.vthreads;
  if (uops > l.uop_depth) {
    return "conv2d knobs (" + k.describe() + "): the micro-op kernels need " +
           std::to_string(uops) + " micro-ops, beyond the micro-op buffer's " +
           std::to_string(l.uop_depth);
  }
  if (p.ow * p.nb > (int64_t{1} << 15) || k.tile_ic * s.k * s.k * k.tile_oc > (int64_t{1} << 15)) {
    return "conv2d knobs (" + k.describe() + "): the layer is too wide for the DMA stride fields";
  }
  return "";
}

void check_conv2d_knobs(const isa::Layout& l, const Conv2dShape& s, const Conv2dKnobs& k,
                        bool residual, bool channel_shifts) {
  check_conv2d_shape(s);
  if (std::string e = conv2d_knobs_error(l, s, k, residual, channel_shifts); !e.empty())
    throw UserError(e);
}

namespace {

// The analytic chooser's estimate of a tiling's cycles: per output tile, the input and weight
// loads of each step over the input channels against its GEMM work (overlapped with virtual
// threads), the epilogue and the store.
double tiling_cost(const isa::Layout& l, const isa::Platform& pf, const Conv2dShape& s,
                   const Conv2dKnobs& k, bool residual, bool channel_shifts) {
  const double bus = pf.axi_data_bits / 8.0;
  const Padded p = padded(l, s, k);
  const int64_t th = k.tile_h, tw = k.tile_w, tic = k.tile_ic, toc = k.tile_oc, tn = k.tile_n;
  const double tiles =
      double(p.nb / tn) * double(p.ocb / toc) * double(p.oh / th) * double(p.ow / tw);
  const double steps = double(p.icb / tic);
  const double compute = double(tic * s.k * s.k * toc * th * tw * tn);
  // A padded input copy is one LOAD per channel block. A dense layer's (no padding, one
  // pixel) is one LOAD of tn rows of tic blocks, like its weight tile; a short row is a short
  // burst, and bursts wait on the DRAM's latency when too few of them are in flight.
  const bool dense = s.h == 1 && s.w == 1 && s.k == 1 && s.pad == 0;
  auto rows_of = [&](double rows, double bytes) {
    const double bursts = std::ceil(bytes / (pf.max_burst_beats * bus));
    return rows * std::max(std::ceil(bytes / bus),
                           bursts * pf.read_latency / pf.max_outstanding_reads);
  };
  const double load =
      dense ? rows_of(tn, tic * l.inp_elem_bytes) + rows_of(toc, tic * l.wgt_elem_bytes) +
                  2.0 * pf.read_latency
            : (tn * tic * p.rows * p.cols * l.inp_elem_bytes +
               toc * tic * s.k * s.k * l.wgt_elem_bytes) /
                      bus +
                  double(tic + 1) * pf.read_latency;
  // reset, shift, bias, max, min (and the residual's load and add); the store_requant option
  // takes shift, max and min onto the STORE
  // (a per-channel shift: one more pass with a register operand, two cycles a uop)
  const double passes = (l.config.options.has(isa::HwOption::kStoreRequant) ? 2.0 : 5.0) +
                        (residual ? 2.0 : 0.0) + (channel_shifts ? 2.0 : 0.0);
  const double tail = double(tn * toc * th * tw) * passes;
  const double store = tn * (toc * th * tw * l.out_elem_bytes / bus + pf.write_latency);
  const double tile_time =
      k.vthreads > 1 ? std::max(steps * std::max(compute, 1.25 * load) + tail, store)
                     : steps * (compute + load) + tail + store;
  return tiles * tile_time;
}

}  // namespace

std::vector<Conv2dKnobs> conv2d_candidates(const isa::Layout& l, const isa::Platform& pf,
                                           const Conv2dShape& s, int64_t vthreads, size_t limit,
                                           bool residual, bool channel_shifts) {
  check_conv2d_shape(s);
  const auto& c = l.config;
  auto sizes = [](int64_t n) {
    std::set<int64_t> v;
    for (int64_t t = 1; t <= n; t *= 2) v.insert(t);
    for (int64_t d = 1; d <= n; ++d) {
      if (n % d == 0) v.insert(d);
    }
    v.insert(n);
    return v;
  };
  auto pow2 = [](int64_t n) {
    std::vector<int64_t> v;
    for (int64_t t = 1; t < 2 * n; t *= 2) v.push_back(t);
    return v;
  };
  const int64_t icb = ceil_div(s.ic, c.block_in()), ocb = ceil_div(s.oc, c.block_out());
  // A dense layer (1x1 output): its rows are batch blocks, tiled so that weights are reused.
  const bool dense = s.out_h() == 1 && s.out_w() == 1;
  const std::set<int64_t> tile_ns =
      dense ? sizes(ceil_div(s.n, c.batch())) : std::set<int64_t>{1};
  std::vector<std::pair<double, Conv2dKnobs>> scored;
  for (char axis : {'o', 'h'}) {
    if (vthreads == 1 && axis == 'h') continue;
    for (int64_t th : sizes(s.out_h())) {
      for (int64_t tw : sizes(s.out_w())) {
        std::vector<int64_t> tics = pow2(icb);
        if (dense && (icb & (icb - 1)) != 0) tics.push_back(icb);  // whole rows
        for (int64_t tic : tics) {
          for (int64_t toc : pow2(ocb)) {
            for (int64_t tn : tile_ns) {
              Conv2dKnobs k{th, tw, tic, toc, vthreads, axis};
              k.tile_n = tn;
              if (!conv2d_knobs_error(l, s, k, residual, channel_shifts).empty()) continue;
              scored.push_back({tiling_cost(l, pf, s, k, residual, channel_shifts), k});
            }
          }
        }
      }
    }
  }
  if (scored.empty()) {
    throw UserError("conv2d: no tiling of " + s.describe() + " fits the buffers of " + c.name +
                    " with " + std::to_string(vthreads) + " virtual threads");
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Conv2dKnobs> out;
  for (size_t i = 0; i < scored.size() && out.size() < limit; ++i) out.push_back(scored[i].second);
  return out;
}

Conv2d make_conv2d(const isa::Layout& l, const Conv2dShape& shape, const Conv2dKnobs& knobs,
                   const Conv2dEpilogue& epilogue) {
  check_conv2d_knobs(l, shape, knobs, epilogue.residual, epilogue.channel_shifts);
  if (epilogue.shift < 0 || epilogue.shift > 31) {
    throw UserError("conv2d: shift = " + std::to_string(epilogue.shift) +
                    " is out of range (0 to 31)");
  }
  const te::GemmIntrinsic g = te::gemm_intrinsic(l);
  const Padded p = padded(l, shape, knobs);
  Conv2d cv;
  cv.shape = shape;
  cv.knobs = knobs;
  cv.epilogue = epilogue;
  cv.nb = p.nb;
  cv.icb = p.icb;
  cv.ocb = p.ocb;
  cv.oh = p.oh;
  cv.ow = p.ow;
  cv.batch = g.batch;
  cv.block_in = g.block_in;
  cv.block_out = g.block_out;
  const int64_t s = shape.stride, pad = shape.pad, kk = shape.k;

  cv.a = te::placeholder({p.nb, p.icb, shape.h, shape.w, g.batch, g.block_in}, DType::kInt8, "A");
  cv.w = te::placeholder({p.ocb, p.icb, kk, kk, g.block_out, g.block_in}, DType::kInt8, "W");
  // The zero-padded view of the input, tall and wide enough for every (rounded-up) tile.
  const int64_t rows = std::max(shape.h + 2 * pad, (p.oh - 1) * s + kk);
  const int64_t cols = std::max(shape.w + 2 * pad, (p.ow - 1) * s + kk);
  const te::Tensor a = cv.a;
  // Where no tile reads outside the input (no padding, the output not rounded past it: 1x1
  // layers, dense layers) the copies read the input itself: a plain copy merges the loops that
  // walk both buffers contiguously into one LOAD (a dense tile of whole rows is one run),
  // where a padded one keeps one LOAD per channel block and row.
  const bool inside = pad == 0 && rows == shape.h && cols == shape.w;
  const te::Tensor a_view = inside ? a : te::compute(
      {p.nb, p.icb, rows, cols, g.batch, g.block_in}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        const ir::Expr y = ir::sub(i[2], ir::imm(pad)), x = ir::sub(i[3], ir::imm(pad));
        const ir::Expr inside = ir::logical_and(
            ir::logical_and(ir::ge(y, ir::imm(0)), ir::lt(y, ir::imm(shape.h))),
            ir::logical_and(ir::ge(x, ir::imm(0)), ir::lt(x, ir::imm(shape.w))));
        return ir::select(inside, a({i[0], i[1], y, x, i[4], i[5]}), ir::imm(0, DType::kInt8));
      },
      "A.pad");
  const te::IterVar ric = te::reduce_axis(p.icb, "ic"), rkh = te::reduce_axis(kk, "kh"),
                    rkw = te::reduce_axis(kk, "kw"), rci = te::reduce_axis(g.block_in, "ci");
  const te::Tensor w = cv.w;
  cv.c = te::compute_reduce(
      {p.nb, p.ocb, p.oh, p.ow, g.batch, g.block_out}, DType::kInt32,
      [&](const std::vector<ir::Expr>& i) {
        const ir::Expr ic = ir::ref(ric->var), kh = ir::ref(rkh->var), kw = ir::ref(rkw->var),
                       ci = ir::ref(rci->var);
        const ir::Expr y = ir::add(ir::mul(i[2], ir::imm(s)), kh);
        const ir::Expr x = ir::add(ir::mul(i[3], ir::imm(s)), kw);
        return te::sum(ir::mul(ir::cast(DType::kInt32, a_view({i[0], ic, y, x, i[4], ci})),
                               ir::cast(DType::kInt32, w({i[1], ic, kh, kw, i[5], ci}))),
                       {ric, rkh, rkw, rci});
      },
      "C");
  cv.bias = te::placeholder({p.ocb, g.batch, g.block_out}, DType::kInt32, "B");
  const te::Tensor c = cv.c, bias = cv.bias;
  te::Tensor r32;
  if (epilogue.residual) {
    cv.residual = te::placeholder({p.nb, p.ocb, p.oh, p.ow, g.batch, g.block_out}, DType::kInt8, "R");
    const te::Tensor r = cv.residual;
    // The residual widened into the accumulator: one ACC_8BIT load per tile.
    r32 = te::compute({p.nb, p.ocb, p.oh, p.ow, g.batch, g.block_out}, DType::kInt32,
                      [&](const std::vector<ir::Expr>& i) { return ir::cast(DType::kInt32, r(i)); },
                      "R.acc");
  }
  // --- per-channel shifts (epilogue.channel_shifts): S widened into the accumulator ---
  te::Tensor s32;
  if (epilogue.channel_shifts) {
    cv.shifts = te::placeholder({p.ocb, g.batch, g.block_out}, DType::kInt8, "S");
    const te::Tensor st = cv.shifts;
    s32 = te::compute({p.ocb, g.batch, g.block_out}, DType::kInt32,
                      [&](const std::vector<ir::Expr>& i) { return ir::cast(DType::kInt32, st(i)); },
                      "S.acc");
  }
  cv.d = te::compute(
      {p.nb, p.ocb, p.oh, p.ow, g.batch, g.block_out}, DType::kInt8,
      [&](const std::vector<ir::Expr>& i) {
        ir::Expr v = c(i);
        if (epilogue.bias && epilogue.bias_first) v = ir::add(v, bias({i[1], i[4], i[5]}));
        if (epilogue.shift > 0) v = ir::shr(v, ir::imm(epilogue.shift, DType::kInt32));
        if (epilogue.channel_shifts) v = ir::shr(v, s32({i[1], i[4], i[5]}));
        if (epilogue.bias && !epilogue.bias_first) v = ir::add(v, bias({i[1], i[4], i[5]}));
        if (epilogue.residual) v = ir::add(v, r32(i));
        v = ir::max(v, ir::imm(epilogue.relu ? 0 : -128, DType::kInt32));
        v = ir::min(v, ir::imm(127, DType::kInt32));
        return ir::cast(DType::kInt8, v);
      },
      "D");

  cv.schedule = std::make_unique<te::Schedule>(std::vector<te::Tensor>{cv.d});
  te::Schedule& sc = *cv.schedule;
  sc.set_scope(cv.c, ir::Scope::kAcc);
  const te::Tensor a_inp = sc.cache_read(a_view, ir::Scope::kInp, {cv.c});
  if (!inside) sc.compute_inline(a_view);
  const te::Tensor w_wgt = sc.cache_read(cv.w, ir::Scope::kWgt, {cv.c});
  te::Tensor b_acc;
  if (epilogue.bias) b_acc = sc.cache_read(cv.bias, ir::Scope::kAcc, {cv.d});

  te::Stage& out = sc[cv.d];
  const auto ax = out.axes();  // n, oc, oh, ow, b, o
  auto [nbo, nbi] = out.split(ax[0], knobs.tile_n);
  auto [oco, oci] = out.split(ax[1], knobs.tile_oc);
  auto [oho, ohi] = out.split(ax[2], knobs.tile_h);
  auto [owo, owi] = out.split(ax[3], knobs.tile_w);
  out.reorder({nbo, oco, oho, owo, nbi, oci, ohi, owi});
  te::IterVar per_oc = oco;  // the loop of output-channel tiles (the shift tile's level)
  if (knobs.vthreads > 1) {
    const te::IterVar& axis = knobs.vthread_axis == 'o' ? oco : oho;
    auto [vt, rest] = out.split(axis, axis->extent / knobs.vthreads);
    if (knobs.vthread_axis == 'o') per_oc = rest;
    out.set_kind(vt, ir::ForKind::kVirtualThread);
    out.reorder({vt, nbo});
  }
  te::Stage& acc = sc[cv.c];
  acc.compute_at(out, owo);
  const auto cax = acc.axes();  // n, oc, oh, ow, b, o
  const auto red = acc.reduce_axes();  // ic, kh, kw, ci
  auto [ico, ici] = acc.split(red[0], knobs.tile_ic);
  acc.reorder({ico, ici, red[1], red[2], cax[0], cax[1], cax[2], cax[3], cax[4], cax[5], red[3]});
  acc.tensorize(cax[4], g);
  sc[a_inp].compute_at(acc, ico);
  sc[w_wgt].compute_at(acc, ico);
  sc[a_inp].pragma(sc[a_inp].axes()[0], "dma_copy");
  sc[w_wgt].pragma(sc[w_wgt].axes()[0], "dma_copy");
  if (epilogue.bias) {
    sc[b_acc].compute_at(out, owo);
    sc[b_acc].pragma(sc[b_acc].axes()[0], "dma_copy");
  }
  if (epilogue.residual) {
    sc.set_scope(r32, ir::Scope::kAcc);
    sc[r32].compute_at(out, owo);
    sc[r32].pragma(sc[r32].axes()[0], "dma_copy");
  }
  if (epilogue.channel_shifts) {
    // The shift tile depends on the output channels only: loaded once per channel tile, not
    // per output tile.
    sc.set_scope(s32, ir::Scope::kAcc);
    sc[s32].compute_at(out, per_oc);
    sc[s32].pragma(sc[s32].axes()[0], "dma_copy");
  }
  // One store per output tile (with tile_n > 1 its rows are several batch blocks: one STORE of
  // tile_n rows rather than tile_n STOREs, each of which would push a token).
  out.pragma(knobs.tile_n > 1 ? nbi : oci, "dma_copy");
  return cv;
}

}  // namespace weft::compiler::ops
