// The CPU depthwise convolution on channel blocks; see depthwise_conv.h.
#include "compiler/ops/cpu/depthwise_conv.h"

#include <algorithm>
#include <cmath>

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;
using IDT = ir::DType;

std::string DepthwiseConv::str() const {
  std::string s;
  for (int64_t v : {n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr, oh, ow})
    s += (s.empty() ? "" : ",") + std::to_string(v);
  if (bias) s += " bias";
  if (clip) s += " clip " + std::to_string(lo) + "," + std::to_string(hi);
  if (act) s += " " + act->str();
  return s;
}

namespace {

// Output columns of the register tile: the largest divisor of OW up to 7 (7 x 16 lanes are 14
// AVX2 accumulators, leaving two registers for the weights of a tap).
int64_t tile_cols(int64_t ow) {
  for (int64_t r = 7; r > 1; --r)
    if (ow % r == 0) return r;
  return 1;
}

// The padded input rows of a band of output rows are a buffer on the stack of the thread that
// computes the band; a band's buffer is kept within this (a very wide input instead pads into
// a workspace of the whole input, band_rows 0).
constexpr int64_t kBandBytes = int64_t{256} << 10;

// Output rows of a band: the largest divisor of OH up to 8 whose input rows fit kBandBytes; 0
// when one row's do not.
int64_t band_rows(const DepthwiseConv& s) {
  const int64_t row_bytes = (s.w + s.pl + s.pr) * kDepthwiseBlock * int64_t{sizeof(float)};
  for (int64_t r = 8; r >= 1; --r)
    if (s.oh % r == 0 && ((r - 1) * s.sh + s.kh) * row_bytes <= kBandBytes) return r;
  return 0;
}

}  // namespace

LoweredOp depthwise_conv2d(const DepthwiseConv& s) {
  const int64_t hp = s.h + s.pt + s.pb, wp = s.w + s.pl + s.pr;
  if (s.n < 1 || s.c < 1 || s.h < 1 || s.w < 1 || s.kh < 1 || s.kw < 1 || s.sh < 1 || s.sw < 1 ||
      s.pt < 0 || s.pl < 0 || s.pb < 0 || s.pr < 0 || s.oh < 1 || s.ow < 1 ||
      (s.oh - 1) * s.sh + s.kh > hp || (s.ow - 1) * s.sw + s.kw > wp)
    throw UserError("depthwise_conv2d: impossible shape " + s.str());
  const int64_t B = kDepthwiseBlock, nb = s.blocks();
  te::Tensor x = te::placeholder({s.n, nb, s.h, s.w, B}, IDT::kFloat32, "X");
  te::Tensor w = te::placeholder({nb, s.kh, s.kw, B}, IDT::kFloat32, "W");
  const bool padded = s.pt || s.pl || s.pb || s.pr;
  te::Tensor xp = x;
  if (padded) {
    xp = te::compute(
        {s.n, nb, hp, wp, B}, IDT::kFloat32,
        [&](const std::vector<Expr>& i) {
          const Expr iy = ir::sub(i[2], ir::imm(s.pt)), ix = ir::sub(i[3], ir::imm(s.pl));
          const Expr v = x({i[0], i[1], clamp(iy, 0, s.h - 1), clamp(ix, 0, s.w - 1), i[4]});
          return ir::select(inside(iy, ix, s.h, s.w), v, ir::fimm(0.0));
        },
        "X.padded");
  }
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  te::Tensor sum = te::compute_reduce(
      {s.n, nb, s.oh, s.ow, B}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(ir::mul(i[2], ir::imm(s.sh)), ir::ref(ry->var));
        const Expr ix = ir::add(ir::mul(i[3], ir::imm(s.sw)), ir::ref(rx->var));
        return te::sum(ir::mul(xp({i[0], i[1], iy, ix, i[4]}),
                               w({i[1], ir::ref(ry->var), ir::ref(rx->var), i[4]})),
                       {ry, rx});
      },
      s.bias || s.clip || s.act ? "Y.sum" : "Y");
  // The epilogue on the tile's registers: bias, then the clip as the interpreter's
  // min(max(v, lo), hi) compares (a NaN is never below lo or above hi, so it stays), then the
  // activation as its own kernel computes it.
  te::Tensor b = te::placeholder({nb, B}, IDT::kFloat32, "B");
  te::Tensor y = sum;
  if (s.bias || s.clip || s.act) {
    y = te::compute(
        {s.n, nb, s.oh, s.ow, B}, IDT::kFloat32,
        [&](const std::vector<Expr>& i) {
          Expr v = sum(i);
          if (s.bias) v = ir::add(v, b({i[1], i[4]}));
          if (s.clip) {
            const Expr lo = ir::fimm(s.lo);
            v = ir::select(ir::lt(v, lo), lo, v);
            if (!(std::isinf(s.hi) && s.hi > 0)) {
              const Expr hi = ir::fimm(s.hi);
              v = ir::select(ir::lt(hi, v), hi, v);
            }
          }
          return s.act ? unary_ir(*s.act, v) : v;
        },
        "Y");
  }

  te::Schedule sc({y});
  te::Tensor local = sum;
  if (y.get() == sum.get()) {
    local = sc.cache_write(y, ir::Scope::kLocal);
  } else {
    sc.set_scope(sum, ir::Scope::kLocal);
  }
  te::Stage& sy = sc[y];
  const auto axes = sy.axes();
  auto [xo, xi] = sy.split(axes[3], tile_cols(s.ow));
  const int64_t band = band_rows(s);
  auto [yo, yi] = sy.split(axes[2], std::max<int64_t>(band, 1));
  // Outer: image, channel block, band of output rows, output row, column tile; the tile:
  // columns (unrolled) x the block's 16 lanes (vectorized), the taps reduced outside it.
  sy.reorder({axes[0], axes[1], yo, yi, xo, xi, axes[4]});
  sy.set_kind(nb >= 2 ? axes[1] : yo, ForKind::kParallel);
  sy.set_kind(xi, ForKind::kUnrolled);
  sy.set_kind(axes[4], ForKind::kVectorized);
  {
    te::Stage& st = sc[local];
    st.compute_at(sy, xo);
    const auto& la = st.axes();
    const auto& lr = st.reduce_axes();  // ry, rx
    st.reorder({lr[0], lr[1], la[3], la[4]});
    st.set_kind(la[3], ForKind::kUnrolled);
    st.set_kind(la[4], ForKind::kVectorized);
  }
  if (padded) {
    te::Stage& sp = sc[xp];
    if (band > 0) {
      sc.set_scope(xp, ir::Scope::kLocal);
      sp.compute_at(sy, yo);
    } else {
      sp.set_kind(sp.axes()[1], ForKind::kParallel);
    }
    sp.set_kind(sp.axes()[4], ForKind::kVectorized);
  }
  const double ops = 2.0 * static_cast<double>(s.n * s.c * s.oh * s.ow * s.kh * s.kw);
  std::vector<te::Tensor> inputs{x, w};
  if (s.bias) inputs.push_back(b);
  return lower_op(kGraphKernelName, sc, inputs, {y}, ops);
}

std::vector<float> pack_depthwise_weights(const float* w, int64_t c, int64_t kh, int64_t kw) {
  const int64_t B = kDepthwiseBlock, nb = (c + B - 1) / B, taps = kh * kw;
  std::vector<float> p(static_cast<size_t>(nb * taps * B), 0.0f);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t t = 0; t < taps; ++t)
      p[static_cast<size_t>(((ch / B) * taps + t) * B + ch % B)] = w[ch * taps + t];
  return p;
}

}  // namespace weft::compiler::ops::cpu
