// The CPU conv2d operator and its schedule; see conv2d.h.
#include "compiler/ops/cpu/conv2d.h"

#include "compiler/ops/cpu/schedules.h"
#include "compiler/ops/index_ir.h"
#include "compiler/ops/op_args.h"
#include "compiler/ops/tiling.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;

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
int64_t conv_tile_cols(const Conv2dNchw& sh, const ConvSchedule& sch) {
  return sch.ow > 0 ? sch.ow : (sh.ow() % 7 == 0 ? 7 : 6);
}
}  // namespace

void validate(const Conv2dNchw& sh, DType dtype, const ConvSchedule& sch) {
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
  if (sch.k_pack != 2 && (sch.k_pack != 4 || dtype != DType::kInt8))
    bad("k_pack " + std::to_string(sch.k_pack) + " (2; 4: byte quads, int8 only)");
  const int64_t cb = conv_in_block(sh.c);
  const int64_t cbk = dtype == DType::kInt8 ? (cb + sch.k_pack - 1) / sch.k_pack : cb;
  if (sch.ci_unroll < 1 || cbk % sch.ci_unroll != 0)
    bad("ci_unroll " + std::to_string(sch.ci_unroll) + " does not divide the channel block of " +
        std::to_string(cbk));
}

LoweredOp conv2d(const Conv2dNchw& sh, DType dtype, const ConvSchedule& sch, int64_t groups,
                 int64_t x_block) {
  check_dtype(dtype, "conv2d", {DType::kFloat32, DType::kInt8});
  check_conv2d_shape(sh);
  const int64_t ob = kConvOutBlock, nob = (sh.o + ob - 1) / ob;
  if (groups < 1 || sh.c % groups || sh.o % groups || (groups > 1 && (dtype != DType::kFloat32 || (sh.o / groups) % ob)))
    throw UserError("conv2d: " + std::to_string(groups) + " groups of " + std::to_string(sh.c) +
                    " input and " + std::to_string(sh.o) + " output channels (grouped: float32, " +
                    "whole blocks of " + std::to_string(ob) + " output channels per group)");
  // A group reduces over its own input channels: the schedule's blocks are a group's.
  Conv2dNchw group = sh;
  group.c = sh.c / groups;
  const DType acc = accumulator_of(dtype);
  const int64_t cb = conv_in_block(group.c), ncb = sh.c / cb, gcb = group.c / cb;
  const int64_t gob = sh.o / groups / ob;  // output blocks per group
  const int64_t oh = sh.oh(), ow = sh.ow();
  validate(group, dtype, sch);
  // The block the input is held in: the kernel's own, or (float32) a multiple of it, whose
  // channel c the kernel finds at block c / xb, lane c % xb (a value in the blocks of 16 an
  // earlier convolution wrote, read by a kernel whose block is 8: no conversion between).
  const int64_t xb = x_block > 0 ? x_block : cb;
  if (xb != cb && (xb % cb || dtype != DType::kFloat32))
    throw UserError("conv2d: an input held in blocks of " + std::to_string(xb) +
                    " for a kernel whose blocks are " + std::to_string(cb) +
                    " channels (float32, a multiple of them)");
  const int64_t nxb = (sh.c + xb - 1) / xb;
  const int64_t r = conv_tile_cols(sh, sch);
  const int64_t owp = round_up(ow, r);
  const int64_t hp = sh.h + 2 * sh.pad, wpd = sh.w + 2 * sh.pad;

  // int8 packs the channels of a block into int32s, pairs (dot2_i16) or quads (dot4_u8s8):
  // weights arrive packed, the input is packed (and padded) by a stage of the kernel.
  const bool pairs = dtype == DType::kInt8;
  const bool quads = pairs && sch.k_pack == 4;
  const int64_t kp = quads ? 4 : 2;
  const int64_t cbk = pairs ? (cb + kp - 1) / kp : cb;
  const DType wdt = pairs ? DType::kInt32 : dtype;
  // int8 blocks of whole words read the input as int32 words, four channels each (the same
  // bytes: the caller's buffer is unchanged), and take the bytes apart with shifts and masks in
  // vectors; quads and pairs built from int8 loads vectorize into a gather per byte. Pairs are
  // then [.., words, 2]: the low and the high pair of each word.
  const bool x_words = pairs && cb % 4 == 0;
  const bool pair_words = x_words && !quads;
  te::Tensor x = x_words ? te::placeholder({sh.n, ncb, sh.h, sh.w, cb / 4}, DType::kInt32, "X")
                         : te::placeholder({sh.n, nxb, sh.h, sh.w, xb}, dtype, "X");
  // Channel `lane` of the kernel's input block `block` at row y, column x of image n.
  auto x_at = [&](const Expr& n, const Expr& block, const Expr& y, const Expr& col, const Expr& lane) {
    if (xb == cb) return x({n, block, y, col, lane});
    const Expr c = ir::add(ir::mul(block, ir::imm(cb)), lane);
    return x({n, ir::floordiv(c, ir::imm(xb)), y, col, ir::floormod(c, ir::imm(xb))});
  };
  te::Tensor wt = te::placeholder({nob, gcb, sh.kh, sh.kw, cbk, ob}, wdt, "W");
  te::Tensor xp = x;
  if (sh.pad > 0 || pairs) {
    const int64_t p = sh.pad;
    std::vector<int64_t> xp_shape{sh.n, ncb, hp, wpd, cbk};
    if (pair_words) xp_shape = {sh.n, ncb, hp, wpd, cb / 4, 2};
    xp = te::compute(
        xp_shape, wdt,
        [&](const std::vector<Expr>& i) {
          auto at = [&](const Expr& c, bool c_guard) {
            Expr inside;
            if (p > 0) {
              inside = ir::logical_and(in_range(i[2], p, sh.h + p), in_range(i[3], p, sh.w + p));
            }
            if (c_guard) {
              Expr ok = ir::lt(c, ir::imm(cb));
              inside = inside ? ir::logical_and(inside, ok) : ok;
            }
            Expr v = x_at(i[0], i[1], p > 0 ? clamp(ir::sub(i[2], ir::imm(p)), 0, sh.h - 1) : i[2],
                          p > 0 ? clamp(ir::sub(i[3], ir::imm(p)), 0, sh.w - 1) : i[3],
                          c_guard ? ir::min(c, ir::imm(cb - 1)) : c);
            return inside ? ir::select(inside, v, ir::imm(0, dtype)) : v;
          };
          if (!pairs) return at(i[4], false);
          if (x_words) {
            Expr word = x({i[0], i[1],
                           p > 0 ? clamp(ir::sub(i[2], ir::imm(p)), 0, sh.h - 1) : i[2],
                           p > 0 ? clamp(ir::sub(i[3], ir::imm(p)), 0, sh.w - 1) : i[3], i[4]});
            Expr v;
            if (quads) {
              v = offset_quad(word);
            } else {  // pair i[5] of the word: its bytes 2 i[5] and 2 i[5] + 1
              Expr low = ir::lt(i[5], ir::imm(1));
              v = pair16(ir::select(low, signed_byte(word, 0), signed_byte(word, 2)),
                         ir::select(low, signed_byte(word, 1), signed_byte(word, 3)));
            }
            if (p == 0) return v;
            // A padding tap reads zeros: 128 in every byte of a quad.
            return ir::select(
                ir::logical_and(in_range(i[2], p, sh.h + p), in_range(i[3], p, sh.w + p)), v,
                ir::imm(quads ? int64_t{-2139062144} : 0, DType::kInt32));
          }
          Expr c0 = ir::mul(i[4], ir::imm(kp));
          if (quads)
            return byte_quad(
                [&](int64_t b) { return at(ir::add(c0, ir::imm(b)), cb % 4 != 0 && b > 0); },
                true);
          return pair16(at(c0, false), at(ir::add(c0, ir::imm(1)), cb % 2 != 0));
        },
        quads ? "X.quads" : pairs ? "X.pairs" : "X.padded");
  }
  const te::IterVar rc = te::reduce_axis(gcb, "rc");
  const te::IterVar ry = te::reduce_axis(sh.kh, "ry");
  const te::IterVar rx = te::reduce_axis(sh.kw, "rx");
  const te::IterVar ri = te::reduce_axis(cbk, "ri");
  const bool exact = owp == ow;
  te::Tensor ysum = te::compute_reduce(
      {sh.n, nob, oh, owp, ob}, acc,
      [&](const std::vector<Expr>& i) {
        Expr iy = ir::add(ir::mul(i[2], ir::imm(sh.stride)), ir::ref(ry->var));
        Expr ix = ir::add(ir::mul(i[3], ir::imm(sh.stride)), ir::ref(rx->var));
        if (!exact) ix = ir::min(ix, ir::imm(wpd - 1));
        // The input block: rc of the output block's group.
        const Expr in_block =
            groups > 1 ? ir::add(ir::mul(ir::floordiv(i[1], ir::imm(gob)), ir::imm(gcb)), ir::ref(rc->var))
                       : ir::ref(rc->var);
        Expr a = pair_words ? xp({i[0], in_block, iy, ix,
                                  ir::floordiv(ir::ref(ri->var), ir::imm(2)),
                                  ir::floormod(ir::ref(ri->var), ir::imm(2))})
                        : xp.get() == x.get() ? x_at(i[0], in_block, iy, ix, ir::ref(ri->var))
                                              : xp({i[0], in_block, iy, ix, ir::ref(ri->var)});
        Expr b = wt(
            {i[1], ir::ref(rc->var), ir::ref(ry->var), ir::ref(rx->var), ir::ref(ri->var), i[4]});
        if (quads) return te::sum(ir::dot4_u8s8(a, b), {rc, ry, rx, ri});
        if (pairs) return te::sum(ir::dot2_i16(a, b), {rc, ry, rx, ri});
        return te::sum(ir::mul(ir::cast(acc, a), ir::cast(acc, b)), {rc, ry, rx, ri});
      },
      quads ? "Y.acc" : exact ? "Y" : "Y.padded");
  // quads: the input's +128 comes back out per output channel, comp[o] = 128 x the sum of its
  // weights over every tap (dot4 of 128 in every byte with the weight quads), padding taps
  // included, since a padding tap read 128 too.
  te::Tensor yf = ysum, comp;
  if (quads) {
    const te::IterVar kc = te::reduce_axis(gcb, "kc"), ky = te::reduce_axis(sh.kh, "ky"),
                      kx = te::reduce_axis(sh.kw, "kx"), kq = te::reduce_axis(cbk, "kq");
    comp = te::compute_reduce(
        {nob, ob}, acc,
        [&](const std::vector<Expr>& i) {
          Expr b = wt({i[0], ir::ref(kc->var), ir::ref(ky->var), ir::ref(kx->var),
                       ir::ref(kq->var), i[1]});
          return te::sum(ir::dot4_u8s8(ir::imm(int64_t{-2139062144}, acc), b), {kc, ky, kx, kq});
        },
        "W.comp");
    yf = te::compute(
        {sh.n, nob, oh, owp, ob}, acc,
        [&](const std::vector<Expr>& i) { return ir::sub(ysum(i), comp({i[1], i[4]})); },
        exact ? "Y" : "Y.padded");
  }
  te::Tensor y = exact ? yf : crop(yf, {sh.n, nob, oh, ow, ob}, "Y");

  te::Schedule s({y});
  te::Tensor local;
  if (quads) {
    s.set_scope(ysum, ir::Scope::kLocal);
    local = ysum;
  } else {
    local = s.cache_write(yf, ir::Scope::kLocal);
  }
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
    // Quads of a block that is not whole words (3, 5 channels) are built from bytes, each byte
    // of a vector of quads a gather (the code generator has no interleaved loads).
    if (pair_words) {
      if (cb / 4 > 1) sp.set_kind(sp.axes()[4], ForKind::kVectorized);
      sp.set_kind(sp.axes()[5], ForKind::kUnrolled);
    } else if (cbk > 1) {
      sp.set_kind(sp.axes()[4], ForKind::kVectorized);
    }
  }
  if (quads) {  // ahead of the tiles: one vector of 16 channels per output-channel block
    te::Stage& sk = s[comp];
    const auto& ka = sk.axes();
    const auto& kr = sk.reduce_axes();
    sk.reorder({ka[0], kr[0], kr[1], kr[2], kr[3], ka[1]});
    sk.set_kind(ka[1], ForKind::kVectorized);
  }
  if (!exact) schedule_blocked(s[y], 16);
  const double ops =
      2.0 * static_cast<double>(sh.n * sh.o * oh * ow) * static_cast<double>(group.c * sh.kh * sh.kw);
  return lower_op(std::string("conv2d_") + ir::dtype_name(dtype), s, {x, wt}, {y}, ops);
}

}  // namespace weft::compiler::ops::cpu
