// The host interpreter; see interpret.h. Each operator is one function of an Op (the node, its
// inputs, its output already allocated); run_node's switch picks it. Where the caller gave
// KernelOverrides an operator offers its work to them first and runs its loop only when they
// decline.
#include "compiler/graph/interpret.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/resize.h"
#include "compiler/graph/transformer_kernels.h"
#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {

std::string where(const Node& n) { return "node '" + n.name + "' (" + op_name(n.kind) + ")"; }

void check_plain(const Value& v, const std::string& what) {
  if (v.type.layout.kind != Layout::Plain)
    throw UserError(what + "'" + v.name + "' is in a blocked layout; the host interpreter runs "
                    "plain-layout graphs (before pack_layouts)");
}

// Whether every path of `n` (its loops and its KernelOverrides) writes each element of its
// float output, so that run_node need not clear it first: the element-wise kinds and a
// convolution of one group. (Others, the JIT dense kernels among them, may accumulate.)
bool writes_every_element(const Node& n) {
  if (n.kind == OpKind::Conv) return n.get_int("group", 1) == 1;
  return n.kind == OpKind::Relu || n.kind == OpKind::Clip || binary_of(n.kind) || unary_of(n);
}

// What an operator's code sees.
template <typename T>
struct Op {
  const Graph& g;
  Interpreter<T>& it;
  KernelOverrides<T>* over;  // may be null
  const Node& n;
  HostValue<T>& y;

  const HostValue<T>& in(size_t k) const { return it.value(n.inputs.at(k)); }
  // Input k as held: possibly in channel blocks (for the readers that keep them).
  const HostValue<T>& stored(size_t k) const { return it.stored(n.inputs.at(k)); }
  bool has(size_t k) const { return k < n.inputs.size() && n.inputs[k] != kNone; }
  // Input k's floats; a float32 constant's (a weight) are read where the graph keeps them,
  // not copied into a HostValue first (in double they are widened once, by in()).
  const T* floats(size_t k) const {
    if constexpr (std::is_same_v<T, float>) {
      const Value& v = g.value(n.inputs.at(k));
      if (v.is_constant() && v.type.dtype == DType::F32) return v.data->f32();
    }
    return in(k).f.data();
  }
  const std::vector<int64_t>& shape(size_t k) const { return g.value(n.inputs.at(k)).type.shape; }
};

Window2d window(const Node& n, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                int64_t kh, int64_t kw) {
  Window2d s;
  s.n = x[0], s.c = x[1], s.h = x[2], s.w = x[3];
  s.kh = kh, s.kw = kw;
  const auto st = n.get_ints("strides", {1, 1}), d = n.get_ints("dilations", {1, 1});
  const auto p = n.get_ints("pads", {0, 0, 0, 0});
  s.sh = st[0], s.sw = st[1], s.dh = d[0], s.dw = d[1];
  s.pt = p[0], s.pl = p[1], s.pb = p[2], s.pr = p[3];
  s.oh = y[2], s.ow = y[3];
  return s;
}

// Per-axis parameter index of flat element `i` of `shape` along `axis` (0 when per tensor).
int64_t axis_index(const std::vector<int64_t>& shape, int64_t axis, int64_t count, int64_t i) {
  if (count == 1) return 0;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  return (i / inner) % shape[static_cast<size_t>(axis)];
}

template <typename T>
void conv(Op<T>& op) {
  const T* w = op.floats(1);
  const std::vector<int64_t>& ws = op.shape(1);
  const Window2d s = window(op.n, op.shape(0), op.y.shape, ws[2], ws[3]);
  const int64_t o = ws[0], group = op.n.get_int("group", 1);
  const T* bias = op.has(2) ? op.in(2).f.data() : nullptr;
  const bool dense = group == 1 && s.sh == s.sw;
  if (op.over && s.dh == 1 && s.dw == 1 && (dense || group > 1)) {
    ConvEpilogue<T> ep = op.it.epilogue_for(op.n);
    if (op.over->conv2d_blocked(op.n.id, op.g.value(op.n.inputs[1]).is_constant(), op.stored(0),
                                w, bias, op.y, s, o, group, ep)) {
      if (ep.applied) op.it.fold(op.n, ep);
      return;
    }
  }
  const HostValue<T>& x = op.in(0);
  if (op.over && s.dh == 1 && s.dw == 1 &&
      (dense ? op.over->conv2d(op.n.id, op.g.value(op.n.inputs[1]).is_constant(), x.f.data(), w,
                               op.y.f.data(), s, o)
             : group > 1 && op.over->grouped_conv2d(x.f.data(), w, op.y.f.data(), s, o, group))) {
    const int64_t plane = s.oh * s.ow;
    if (bias) {
      T* y = op.y.f.data();
      for (int64_t i = 0; i < s.n * o; ++i, y += plane) {  // a plane at a time: no division
        const T b = bias[i % o];
        for (int64_t p = 0; p < plane; ++p) y[p] += b;
      }
    }
    return;
  }
  conv2d_kernel<T>(x.f.data(), w, bias, op.y.f.data(), s, o, group);
}

template <typename T>
void batch_norm(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  int64_t plane = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) plane *= x.shape[d];
  const double eps = op.n.get_float("epsilon", 1e-5);
  const T *sc = op.in(1).f.data(), *bi = op.in(2).f.data(), *mu = op.in(3).f.data(),
          *var = op.in(4).f.data();
  if (op.over && op.over->batch_norm(x.f.data(), sc, bi, mu, var, eps, op.y.f.data(),
                                     x.shape[0], x.shape[1], plane))
    return;
  batch_norm_kernel<T>(x.f.data(), sc, bi, mu, var, eps, op.y.f.data(), x.shape[0], x.shape[1],
                       plane);
}

// Relu and Clip; Relu is Clip(0, +inf). Float bounds: the attributes, then the inputs.
template <typename T>
void clip(Op<T>& op) {
  const bool relu = op.n.kind == OpKind::Relu;
  if (op.stored(0).dtype != DType::F32) {
    const HostValue<T>& x = op.in(0);
    int32_t lo = relu ? 0 : std::numeric_limits<int32_t>::min();
    int32_t hi = std::numeric_limits<int32_t>::max();
    if (!relu && op.has(1)) lo = op.in(1).i.at(0);
    if (!relu && op.has(2)) hi = op.in(2).i.at(0);
    clip_kernel<int32_t>(x.i.data(), op.y.i.data(), x.elements(), lo, hi);
    return;
  }
  const T inf = std::numeric_limits<T>::infinity();
  T lo = relu ? T(0) : static_cast<T>(op.n.get_float("min", -inf));
  T hi = relu ? inf : static_cast<T>(op.n.get_float("max", inf));
  if (!relu && op.has(1)) lo = op.in(1).f.at(0);
  if (!relu && op.has(2)) hi = op.in(2).f.at(0);
  const HostValue<T>& held = op.stored(0);
  if (held.cblock) {  // element-wise: the blocks stay, lanes past C included
    op.y.cblock = held.cblock;
    op.y.f.resize(held.f.size());
    if (op.over && op.over->clip(held.f.data(), op.y.f.data(), static_cast<int64_t>(held.f.size()), lo, hi))
      return;
    clip_kernel<T>(held.f.data(), op.y.f.data(), static_cast<int64_t>(held.f.size()), lo, hi);
    return;
  }
  const HostValue<T>& x = op.in(0);
  if (op.over && op.over->clip(x.f.data(), op.y.f.data(), x.elements(), lo, hi)) return;
  clip_kernel<T>(x.f.data(), op.y.f.data(), x.elements(), lo, hi);
}

template <typename T>
void pool(Op<T>& op) {
  const auto k = op.n.get_ints("kernel_shape");
  const Window2d s = window(op.n, op.shape(0), op.y.shape, k[0], k[1]);
  const bool max = op.n.kind == OpKind::MaxPool;
  const HostValue<T>& held = op.stored(0);
  if (max && held.cblock) {  // the blocks stay
    const int64_t cb = held.cblock;
    op.y.cblock = cb;
    op.y.f.resize(static_cast<size_t>(s.n * ((s.c + cb - 1) / cb) * s.oh * s.ow * cb));
    max_pool_blocked_kernel<T>(held.f.data(), op.y.f.data(), s, cb);
    return;
  }
  const HostValue<T>& x = op.in(0);
  const bool incl = op.n.get_int("count_include_pad", 0) != 0;
  if (x.dtype == DType::F32 && op.over && s.dh == 1 && s.dw == 1 &&
      op.over->pool(max, x.f.data(), op.y.f.data(), s, incl))
    return;
  if (!max) {
    avg_pool_kernel<T>(x.f.data(), op.y.f.data(), s, incl);
  } else if (x.dtype == DType::F32) {
    max_pool_kernel<T>(x.f.data(), op.y.f.data(), s);
  } else {
    max_pool_kernel<int32_t>(x.i.data(), op.y.i.data(), s);
  }
}

template <typename T>
void global_avg_pool(Op<T>& op) {
  const HostValue<T>& held = op.stored(0);
  if (held.cblock) {
    // Read in its blocks (the squeeze of a squeeze-and-excite block converts nothing): the
    // overrides' mean per (image, block, lane) over the plane, then the C real lanes to [N, C];
    // or the loop.
    const int64_t n = held.shape[0], c = held.shape[1], cb = held.cblock, blocks = (c + cb - 1) / cb;
    const int64_t plane = held.elements() / (n * c);
    std::vector<T> means(static_cast<size_t>(n * blocks * cb));
    if (op.over && op.over->reduce_mean(held.f.data(), {n * blocks, plane, cb},
                                        {false, true, false}, means.data())) {
      unblock_channels_kernel<T>(means.data(), op.y.f.data(), n, c, 1, cb);
      return;
    }
    global_avg_pool_blocked_kernel<T>(held.f.data(), op.y.f.data(), n, c, plane, cb);
    return;
  }
  const HostValue<T>& x = op.in(0);
  const int64_t planes = x.shape[0] * x.shape[1], plane = x.elements() / planes;
  if (op.over && op.over->global_avg_pool(x.f.data(), op.y.f.data(), planes, plane)) return;
  global_avg_pool_kernel<T>(x.f.data(), op.y.f.data(), planes, plane);
}

// `v` as one value per (image, channel) of a blocked [N, C, spatial...] `shape` in its blocks of
// `cb`: [N or 1, ceil(C / cb), 1, cb] (spare lanes 0), its shape at `vs`; v's own storage when
// it is held so already (a convolution's [N, C, 1, 1] output), else packed at `scratch`. Null
// unless v's shape broadcasts so (a squeeze-and-excite scale [N, C, 1, 1], a bias [C, 1, 1]).
template <typename T>
const T* per_channel_in_blocks(const HostValue<T>& v, const std::vector<int64_t>& shape,
                               int64_t cb, std::vector<T>& scratch, std::vector<int64_t>& vs) {
  const size_t rank = shape.size();
  if (rank < 3 || v.dtype != DType::F32 || v.shape.size() > rank || (v.cblock && v.cblock != cb))
    return nullptr;
  std::vector<int64_t> d(rank - v.shape.size(), 1);  // right-aligned to the rank of `shape`
  d.insert(d.end(), v.shape.begin(), v.shape.end());
  const int64_t n = shape[0], c = shape[1], blocks = (c + cb - 1) / cb;
  if ((d[0] != 1 && d[0] != n) || (d[1] != 1 && d[1] != c)) return nullptr;
  for (size_t k = 2; k < rank; ++k)
    if (d[k] != 1) return nullptr;
  vs = {d[0], blocks, 1, cb};
  if (v.cblock) return d[1] == c ? v.f.data() : nullptr;
  scratch.assign(static_cast<size_t>(d[0] * blocks * cb), T(0));
  for (int64_t i = 0; i < d[0]; ++i)
    for (int64_t k = 0; k < c; ++k)
      scratch[static_cast<size_t>((i * blocks + k / cb) * cb + k % cb)] =
          v.f[static_cast<size_t>(i * d[1] + (d[1] == 1 ? 0 : k))];
  return scratch.data();
}

// Add, Sub, Mul, Div, Pow on floats, broadcasting.
template <typename T>
void binary(Op<T>& op, ops::BinaryFn f) {
  const HostValue<T>& ha = op.stored(0);
  const HostValue<T>& hb = op.stored(1);
  auto run = [&](const T* a, const std::vector<int64_t>& as, const T* b,
                 const std::vector<int64_t>& bs, const std::vector<int64_t>& ys) {
    if (op.over && op.over->binary(f, a, as, b, bs, op.y.f.data(), ys)) return;
    broadcast_kernel<T>(a, as, b, bs, op.y.f.data(), ys,
                        [f](T u, T v) { return ops::apply<T>(f, u, v); });
  };
  if (ha.cblock && ha.cblock == hb.cblock && ha.shape == hb.shape) {
    // Operands of one shape in the same blocks: element by element, the blocks stay.
    const std::vector<int64_t> flat{static_cast<int64_t>(ha.f.size())};
    op.y.cblock = ha.cblock;
    op.y.f.resize(ha.f.size());
    run(ha.f.data(), flat, hb.f.data(), flat, flat);
    return;
  }
  // One operand in blocks, the other one value per channel (a squeeze-and-excite scale): the
  // blocks stay, the other operand broadcast over each block's positions.
  const bool a_full = ha.cblock && ha.shape == op.y.shape;
  const HostValue<T>& blocked = a_full ? ha : hb;
  const HostValue<T>& other = a_full ? hb : ha;
  std::vector<T> scratch;
  std::vector<int64_t> ls;
  const T* lanes = blocked.cblock && blocked.shape == op.y.shape
                       ? per_channel_in_blocks(other, blocked.shape, blocked.cblock, scratch, ls)
                       : nullptr;
  if (lanes) {
    const int64_t cb = blocked.cblock, n = blocked.shape[0];
    const std::vector<int64_t> bs{n, ls[1], static_cast<int64_t>(blocked.f.size()) / (n * ls[1] * cb), cb};
    op.y.cblock = cb;
    op.y.f.resize(blocked.f.size());
    if (&blocked == &ha)
      run(ha.f.data(), bs, lanes, ls, bs);
    else
      run(lanes, ls, hb.f.data(), bs, bs);
    return;
  }
  const HostValue<T>& a = op.in(0);
  const HostValue<T>& b = op.in(1);
  if (a.dtype != DType::F32)
    throw UserError(where(op.n) + ": int8 Add is a quantized graph's; the host interpreter runs "
                    "float element-wise operators");
  if (op.over && op.over->binary(f, a.f.data(), a.shape, b.f.data(), b.shape, op.y.f.data(),
                                 op.y.shape))
    return;
  broadcast_kernel<T>(a.f.data(), a.shape, b.f.data(), b.shape, op.y.f.data(), op.y.shape,
                      [f](T u, T v) { return ops::apply<T>(f, u, v); });
}

// Sigmoid, Tanh, Erf, Sqrt, HardSigmoid, HardSwish, Gelu.
template <typename T>
void unary(Op<T>& op, const ops::Unary& u) {
  const HostValue<T>& held = op.stored(0);
  // Element-wise: a value in channel blocks stays in them (its spare lanes computed too).
  const HostValue<T>& x = held.cblock ? held : op.in(0);
  const int64_t count = held.cblock ? static_cast<int64_t>(held.f.size()) : x.elements();
  if (held.cblock) {
    op.y.cblock = held.cblock;
    op.y.f.resize(held.f.size());
  }
  if (op.over && op.over->unary(u, x.f.data(), op.y.f.data(), count)) return;
  for (int64_t i = 0; i < count; ++i) op.y.f[i] = ops::apply<T>(u, x.f[i]);
}

template <typename T>
void concat(Op<T>& op) {
  int64_t axis = op.n.get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(op.y.shape.size());
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= op.y.shape[d];
  std::vector<int64_t> inner;
  std::vector<const T*> fp;
  std::vector<const int32_t*> ip;
  for (size_t k = 0; k < op.n.inputs.size(); ++k) {
    const HostValue<T>& x = op.in(k);
    inner.push_back(x.elements() / std::max<int64_t>(outer, 1));
    fp.push_back(x.f.data());
    ip.push_back(x.i.data());
  }
  if (op.y.dtype == DType::F32) {
    concat_kernel<T>(fp, inner, outer, op.y.f.data());
  } else {
    concat_kernel<int32_t>(ip, inner, outer, op.y.i.data());
  }
}

// C[M, N] = A[M, K] W[N, K]^T.
template <typename T>
void dense(Op<T>& op, const T* a, const T* w, T* c, int64_t m, int64_t n, int64_t k) {
  if (op.over && op.over->dense(a, w, c, m, n, k)) return;
  dense_kernel<T>(a, w, c, m, n, k);
}

// C[M, N] = A[M, K] B[K, N], B at element `b_offset` of input 1: the overrides take B as it
// is (dense_kn), else the plain kernel reads it.
template <typename T>
void dense_kn(Op<T>& op, const T* a, int64_t b_offset, T* c, int64_t m, int64_t n, int64_t k) {
  const T* b = op.floats(1) + b_offset;
  if (op.over && op.over->dense_kn(op.n.id, op.g.value(op.n.inputs[1]).is_constant(), b_offset,
                                   a, b, c, m, n, k))
    return;
  dense_kernel<T>(a, b, c, m, n, k, /*w_kn=*/true);
}

template <typename T>
void gemm(Op<T>& op) {
  const HostValue<T>& a = op.in(0);
  const T* b = op.floats(1);
  const bool ta = op.n.get_int("transA", 0), tb = op.n.get_int("transB", 0);
  const int64_t m = op.y.shape[0], nn = op.y.shape[1], k = ta ? a.shape[0] : a.shape[1];
  // A as [M, K] and B as W[N, K] (the dense kernel's layouts).
  std::vector<T> at;
  const T* ap = a.f.data();
  if (ta) {
    at.resize(static_cast<size_t>(m * k));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t q = 0; q < k; ++q) at[i * k + q] = a.f[q * m + i];
    ap = at.data();
  }
  if (tb) {
    dense(op, ap, b, op.y.f.data(), m, nn, k);
  } else {
    dense_kn(op, ap, 0, op.y.f.data(), m, nn, k);
  }
  const T alpha = T(op.n.get_float("alpha", 1.0)), beta = T(op.n.get_float("beta", 1.0));
  std::vector<int64_t> cs;
  const T* c = nullptr;
  if (op.has(2)) {
    c = op.in(2).f.data();
    cs = broadcast_strides(op.in(2).shape, 2);
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < nn; ++j) {
      T& v = op.y.f[i * nn + j];
      v = alpha * v + (c ? beta * c[i * cs[0] + j * cs[1]] : T(0));
    }
}

// numpy's matmul: 1-D operands promoted, batch dimensions broadcast.
template <typename T>
void matmul(Op<T>& op) {
  const HostValue<T>& a = op.in(0);
  auto as = a.shape, bs = op.shape(1);
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), nn = bs.back();
  std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  std::vector<int64_t> batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t da = d < rank - ab.size() ? 1 : ab[d - (rank - ab.size())];
    const int64_t db = d < rank - bb.size() ? 1 : bb[d - (rank - bb.size())];
    batch[d] = std::max(da, db);
  }
  const auto sa = broadcast_strides(ab, rank), sb = broadcast_strides(bb, rank);
  int64_t total = 1;
  for (int64_t d : batch) total *= d;
  int64_t a_total = 1, b_total = 1;
  for (int64_t d : ab) a_total *= d;
  for (int64_t d : bb) b_total *= d;
  if (b_total == 1 && a_total == total) {
    // One B for every batch (a linear layer over [batch..., m, k]): one product of all rows.
    dense_kn(op, a.f.data(), 0, op.y.f.data(), total * m, nn, k);
    return;
  }
  for (int64_t t = 0; t < total; ++t) {
    int64_t rem = t, ia = 0, ib = 0;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      ia += idx * sa[d];
      ib += idx * sb[d];
    }
    const T* ap = a.f.data() + ia * m * k;
    dense_kn(op, ap, ib * k * nn, op.y.f.data() + t * m * nn, m, nn, k);
  }
}

template <typename T>
void transpose(Op<T>& op) {
  const std::vector<int64_t> perm = op.n.get_ints("perm");
  const HostValue<T>& held = op.stored(0);
  const size_t r = held.shape.size();
  if (held.cblock && r >= 3 && held.shape[1] % held.cblock == 0) {
    // A value in channel blocks, [N, C/cb, spatial..., cb], is transposed as it is held: the
    // channel dimension of the output is its blocks then their lanes, so the one permutation
    // of r + 1 dimensions writes the plain output (convert-then-transpose read the channels
    // through a stride: ConvNeXt's first Transpose took 6.6 ms, most of its Transposes' time).
    const int64_t cb = held.cblock;
    std::vector<int64_t> xs{held.shape[0], held.shape[1] / cb};
    for (size_t d = 2; d < r; ++d) xs.push_back(held.shape[d]);
    xs.push_back(cb);
    std::vector<int64_t> p;
    for (int64_t d : perm) {
      if (d == 1) {
        p.push_back(1);
        p.push_back(static_cast<int64_t>(r));
      } else {
        p.push_back(d);
      }
    }
    if (op.over && op.over->transpose(held.f.data(), xs, p, op.y.f.data())) return;
    transpose_kernel<T>(held.f.data(), xs, p, op.y.f.data());
    return;
  }
  const HostValue<T>& x = op.in(0);
  if (op.over && op.over->transpose(x.f.data(), x.shape, perm, op.y.f.data())) return;
  transpose_kernel<T>(x.f.data(), x.shape, perm, op.y.f.data());
}

template <typename T>
void resize(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const std::vector<ResizeAxis> axes = resize_axes(op.n, x.shape, op.y.shape);
  if (op.over && op.over->resize(x.f.data(), x.shape, axes, op.y.f.data())) return;
  resize_kernel<T>(x.f.data(), x.shape, axes, op.y.f.data());
}

// Elements [start, end) of one axis: outer blocks of the input copied in order.
template <typename T>
void slice(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const size_t axis = static_cast<size_t>(op.n.get_int("axis", 0));
  const int64_t b = op.n.get_int("start", 0), e = op.n.get_int("end", 0);
  const int64_t step = op.n.get_int("step", 1);
  if (op.over && op.over->slice(x.f.data(), x.shape, axis, b, e, step, op.y.f.data())) return;
  slice_kernel<T>(x.f.data(), x.shape, axis, b, e, op.y.f.data(), step);
}

template <typename T>
void softmax(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const int64_t axis = op.n.get_int("axis", -1);
  if (op.over && op.over->softmax(x.f.data(), x.shape, axis, op.y.f.data())) return;
  softmax_kernel<T>(x.f.data(), x.shape, axis, op.y.f.data());
}

template <typename T>
void reduce_mean(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t a : op.n.get_ints("axes")) reduced[static_cast<size_t>(a)] = true;
  if (op.over && op.over->reduce_mean(x.f.data(), x.shape, reduced, op.y.f.data())) return;
  reduce_mean_kernel<T>(x.f.data(), x.shape, reduced, op.y.f.data(), op.y.elements());
}

template <typename T>
void layer_norm(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const HostValue<T>& sc = op.in(1);
  const HostValue<T>* b = op.has(2) ? &op.in(2) : nullptr;
  const int64_t axis = op.n.get_int("axis", -1);
  const double eps = op.n.get_float("epsilon", 1e-5);
  const int output = static_cast<int>(op.n.get_int("output", 0));
  if (!output && op.over && op.over->layer_norm(x.f.data(), x.shape, axis, eps, sc.f.data(), sc.elements(),
                                     b ? b->f.data() : nullptr, b ? b->elements() : 0,
                                     op.y.f.data()))
    return;
  layer_norm_kernel<T>(x.f.data(), x.shape, axis, eps, sc.f.data(), sc.elements(),
                       b ? b->f.data() : nullptr, b ? b->elements() : 0, op.y.f.data(), output);
}

// ONNX QuantizeLinear: x / scale in T, rounded and saturated as int8_rounding.h's
// quantize_linear.
template <typename T>
void quantize_linear(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const HostValue<T>& s = op.in(1);
  const HostValue<T>& z = op.in(2);
  const int64_t axis = op.n.get_int("axis", 1), cnt = static_cast<int64_t>(s.f.size());
  for (int64_t i = 0; i < x.elements(); ++i) {
    const int64_t c = axis_index(x.shape, axis, cnt, i);
    op.y.i[i] = static_cast<int32_t>(ops::quantize_linear<T>(x.f[i] / s.f[c], T(z.i[c])));
  }
}

template <typename T>
void dequantize_linear(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const HostValue<T>& s = op.in(1);
  const HostValue<T>* z = op.has(2) ? &op.in(2) : nullptr;
  const int64_t axis = op.n.get_int("axis", 1), cnt = static_cast<int64_t>(s.f.size());
  for (int64_t i = 0; i < x.elements(); ++i) {
    const int64_t c = axis_index(x.shape, axis, cnt, i);
    op.y.f[i] = T(x.i[i] - (z ? z->i[c] : 0)) * s.f[c];
  }
}

// ONNX QLinearConv: an int32 convolution of the centred operands, then the combined scale in
// double, rounded and saturated as quantize_linear.
template <typename T>
void qlinear_conv(Op<T>& op) {
  const HostValue<T>& x = op.in(0);
  const HostValue<T>& w = op.in(3);
  const Window2d s = window(op.n, x.shape, op.y.shape, w.shape[2], w.shape[3]);
  const int64_t o = w.shape[0];
  const int32_t xz = op.in(2).i.at(0), yz = op.in(7).i.at(0);
  const double xs = op.in(1).f.at(0), ys = op.in(6).f.at(0);
  const HostValue<T>& ws = op.in(4);
  const HostValue<T>& wz = op.in(5);
  std::vector<int32_t> xc(x.i.size()), wc(w.i.size());
  for (size_t k = 0; k < x.i.size(); ++k) xc[k] = x.i[k] - xz;
  const int64_t group = op.n.get_int("group", 1), per_o = s.c / group * s.kh * s.kw;
  for (size_t k = 0; k < w.i.size(); ++k) wc[k] = w.i[k] - wz.i[wz.i.size() == 1 ? 0 : k / per_o];
  std::vector<int32_t> acc(static_cast<size_t>(op.y.elements()));
  // Zero padding of the centred input is ONNX's padding with the zero point.
  conv2d_kernel<int32_t>(xc.data(), wc.data(), nullptr, acc.data(), s, o, group);
  const int64_t plane = s.oh * s.ow;
  for (int64_t i = 0; i < op.y.elements(); ++i) {
    const int64_t c = (i / plane) % o;
    int64_t a = acc[i];
    if (op.has(8)) a += op.in(8).i.at(c);
    const double scale = xs * double(ws.f[ws.f.size() == 1 ? 0 : c]) / ys;
    op.y.i[i] = static_cast<int32_t>(ops::quantize_linear<double>(double(a) * scale, yz));
  }
}

}  // namespace

template <typename T>
Interpreter<T>::Interpreter(const Graph& g, KernelOverrides<T>* overrides)
    : g_(g), overrides_(overrides) {
  // Who reads what, for folding epilogues into convolutions: only the overrides fold (an
  // interpreter per node, as run_float_node makes, never walks the whole graph for it).
  if (!overrides_) return;
  readers_.resize(g.num_values());
  is_output_.assign(g.num_values(), 0);
  for (NodeId id : g.topo_order())
    for (ValueId v : g.node(id).inputs)
      if (v != kNone) readers_[static_cast<size_t>(v)].push_back(id);
  for (ValueId v : g.outputs()) is_output_[static_cast<size_t>(v)] = 1;
}

template <typename T>
const Node* Interpreter<T>::only_reader(ValueId v, OpKind kind) const {
  if (readers_.empty()) return nullptr;
  const auto& r = readers_.at(static_cast<size_t>(v));
  if (r.size() != 1 || is_output_[static_cast<size_t>(v)]) return nullptr;
  const Node& n = g_.node(r[0]);
  return n.kind == kind ? &n : nullptr;
}

template <typename T>
ConvEpilogue<T> Interpreter<T>::epilogue_for(const Node& conv) const {
  ConvEpilogue<T> ep;
  if (!overrides_) return ep;
  ValueId last = conv.outputs.at(0);
  if (const Node* add = only_reader(last, OpKind::Add)) {
    const ValueId r = add->inputs.at(0) == last ? add->inputs.at(1) : add->inputs.at(0);
    const HostValue<T>& held = values_.at(static_cast<size_t>(r));
    if (r != last && ready_[static_cast<size_t>(r)] && held.dtype == DType::F32 &&
        g_.value(r).type.shape == g_.value(last).type.shape) {
      ep.residual = &held;
      last = add->outputs.at(0);
    }
  }
  ep.clip = clip_after(last, &ep.lo, &ep.hi) != nullptr;
  ops::Unary u;
  if (!ep.clip && !activation_after(last, &u).empty()) ep.act = u;
  return ep;
}

template <typename T>
std::vector<const Node*> Interpreter<T>::activation_after(ValueId v, ops::Unary* u) const {
  if (readers_.empty() || is_output_[static_cast<size_t>(v)]) return {};
  if (const Node* hs = only_reader(v, OpKind::HardSwish)) {
    u->fn = ops::Unary::kHardSwish;
    return {hs};
  }
  // v times a gate of v: v's readers are a Sigmoid of v (SiLU) or a HardSigmoid of v with
  // HardSwish's constants (HardSwish as opset 13 exports write it) and a Mul of v and that
  // gate (either order), and the gate's only reader is the Mul.
  const auto& r = readers_.at(static_cast<size_t>(v));
  if (r.size() != 2) return {};
  const Node* gate = &g_.node(r[0]);
  const Node* mul = &g_.node(r[1]);
  if (gate->kind == OpKind::Mul) std::swap(gate, mul);
  if (mul->kind != OpKind::Mul || gate->inputs.size() != 1 || mul->inputs.size() != 2 ||
      only_reader(gate->outputs.at(0), OpKind::Mul) != mul)
    return {};
  const ValueId s = gate->outputs[0];
  if (!((mul->inputs[0] == v && mul->inputs[1] == s) || (mul->inputs[0] == s && mul->inputs[1] == v)))
    return {};
  if (gate->kind == OpKind::Sigmoid) {
    u->fn = ops::Unary::kSilu;
    return {gate, mul};
  }
  const std::optional<ops::Unary> hs = unary_of(*gate);
  // The same float constants as HardSwish's, so v * HardSigmoid(v) is HardSwish bit for bit.
  auto f = [](double d) { return static_cast<float>(d); };
  if (gate->kind == OpKind::HardSigmoid && hs && hs->alpha != 0 &&
      f(hs->alpha) == f(ops::kHardSwishAlpha) &&
      f(hs->beta / hs->alpha) == f(ops::kHardSwishBeta / ops::kHardSwishAlpha)) {
    u->fn = ops::Unary::kHardSwish;
    return {gate, mul};
  }
  return {};
}

template <typename T>
const Node* Interpreter<T>::clip_after(ValueId v, T* lo, T* hi) const {
  const T inf = std::numeric_limits<T>::infinity();
  if (const Node* relu = only_reader(v, OpKind::Relu)) {
    *lo = T(0), *hi = inf;
    return relu;
  }
  const Node* clip = only_reader(v, OpKind::Clip);
  double l = 0, h = 0;
  if (!clip || !constant_clip_bounds(g_, *clip, &l, &h)) return nullptr;
  *lo = static_cast<T>(l), *hi = static_cast<T>(h);
  return clip;
}

template <typename T>
void Interpreter<T>::fold(const Node& conv, const ConvEpilogue<T>& ep) {
  ValueId last = conv.outputs.at(0);
  if (ep.residual) {
    const Node* add = only_reader(last, OpKind::Add);
    folded_into_.at(static_cast<size_t>(add->id)) = last;
    last = add->outputs.at(0);
  }
  T lo, hi;
  if (ep.clip) folded_into_.at(static_cast<size_t>(clip_after(last, &lo, &hi)->id)) = last;
  if (ep.act) {
    // A chain: each node takes over the value of the one before it (the Sigmoid the
    // convolution's, the Mul the Sigmoid's), so the last holds the activation.
    ops::Unary u;
    for (const Node* n : activation_after(last, &u)) {
      folded_into_.at(static_cast<size_t>(n->id)) = last;
      last = n->outputs.at(0);
    }
  }
}

template <typename T>
bool Interpreter<T>::folded(NodeId n) const {
  return static_cast<size_t>(n) < folded_into_.size() &&
         folded_into_[static_cast<size_t>(n)] != kNone;
}

template <typename T>
void Interpreter<T>::start(std::vector<HostValue<T>> inputs) {
  const auto ins = g_.inputs();
  if (inputs.size() != ins.size())
    throw UserError("the graph '" + g_.name() + "' takes " + std::to_string(ins.size()) +
                    " input(s), " + std::to_string(inputs.size()) + " given");
  for (size_t k = 0; k < ins.size(); ++k) {
    const Value& v = g_.value(ins[k]);
    const HostValue<T>& a = inputs[k];
    if (a.dtype != v.type.dtype)
      throw UserError("input '" + v.name + "' must be " + dtype_name(v.type.dtype) + ", not " +
                      dtype_name(a.dtype));
    if (a.shape != v.type.shape)
      throw UserError("input '" + v.name + "' must have shape " + shape_str(v.type.shape) +
                      ", not " + shape_str(a.shape));
    const size_t have = a.dtype == DType::F32 ? a.f.size() : a.i.size();
    if (static_cast<int64_t>(have) != v.type.elements())
      throw UserError("input '" + v.name + "' has " + std::to_string(have) +
                      " elements, its type " + v.type.str() + " needs " +
                      std::to_string(v.type.elements()));
  }
  // Earlier values' storage stays for the nodes to reuse (run_node); none is ready.
  values_.resize(g_.num_values());
  ready_.assign(g_.num_values(), 0);
  folded_into_.assign(g_.num_nodes(), kNone);
  for (size_t k = 0; k < ins.size(); ++k) {
    values_[static_cast<size_t>(ins[k])] = std::move(inputs[k]);
    ready_[static_cast<size_t>(ins[k])] = 1;
  }
}

template <typename T>
const HostValue<T>& Interpreter<T>::stored(ValueId v) {
  if (ready_.at(static_cast<size_t>(v))) return values_[static_cast<size_t>(v)];
  return value(v);
}

template <typename T>
const HostValue<T>& Interpreter<T>::value(ValueId v) {
  HostValue<T>& s = values_.at(static_cast<size_t>(v));
  if (ready_[static_cast<size_t>(v)] && s.cblock) {  // to the logical layout, once
    const int64_t n = s.shape.at(0), c = s.shape.at(1);
    const int64_t plane = n * c > 0 ? s.elements() / (n * c) : 0;
    std::vector<T> plain(static_cast<size_t>(s.elements()));
    if (!overrides_ || !overrides_->unblock(s, plain.data()))
      unblock_channels_kernel<T>(s.f.data(), plain.data(), n, c, plane, s.cblock);
    s.f.swap(plain);
    s.cblock = 0;
  }
  if (ready_[static_cast<size_t>(v)]) return s;
  const Value& val = g_.value(v);
  if (!val.is_constant())
    throw InternalError("host interpreter: value '" + val.name + "' is read before it is computed");
  check_plain(val, "constant ");
  s.dtype = val.type.dtype;
  s.shape = val.type.shape;
  const int64_t n = val.type.elements();
  switch (val.type.dtype) {
    case DType::F32: s.f.assign(val.data->f32(), val.data->f32() + n); break;
    case DType::I8: s.i.assign(val.data->i8(), val.data->i8() + n); break;
    case DType::I32: s.i.assign(val.data->i32(), val.data->i32() + n); break;
  }
  ready_[static_cast<size_t>(v)] = 1;
  return s;
}

template <typename T>
const HostValue<T>& Interpreter<T>::run_node(const Node& n) {
  for (ValueId v : n.inputs)
    if (v != kNone) check_plain(g_.value(v), where(n) + ": input ");
  const auto& t = g_.value(n.outputs.at(0)).type;
  HostValue<T>& y = values_.at(static_cast<size_t>(n.outputs[0]));
  if (folded(n.id)) {
    // Computed by the convolution before it: its storage becomes this node's (a swap, so that
    // both keep storage for the next run); nothing else read it.
    const size_t from = static_cast<size_t>(folded_into_[static_cast<size_t>(n.id)]);
    HostValue<T>& src = values_.at(from);
    y.dtype = t.dtype;
    y.shape = t.shape;
    y.cblock = src.cblock;
    y.f.swap(src.f);
    // The convolution's value now holds this node's storage of the run before; on a first run
    // there is none, and it is made here, so that the next run writes into memory it has.
    src.f.resize(y.f.size());
    ready_[from] = 0;
    ready_[static_cast<size_t>(n.outputs[0])] = 1;
    return y;
  }
  // The last run's storage is kept (fresh pages for every value were a large part of a small
  // network's time). Operators whose every path writes each output element skip the zeros.
  y.dtype = t.dtype;
  y.shape = t.shape;
  y.cblock = 0;
  if (t.dtype == DType::F32) {
    if (writes_every_element(n)) {
      y.f.resize(static_cast<size_t>(t.elements()));
    } else {
      y.f.assign(static_cast<size_t>(t.elements()), T(0));
    }
    y.i.clear();
  } else {
    y.i.assign(static_cast<size_t>(t.elements()), 0);
    y.f.clear();
  }
  ready_[static_cast<size_t>(n.outputs[0])] = 1;
  Op<T> op{g_, *this, overrides_, n, y};
  switch (n.kind) {
    case OpKind::Conv: conv(op); break;
    case OpKind::BatchNormalization: batch_norm(op); break;
    case OpKind::Relu:
    case OpKind::Clip: clip(op); break;
    case OpKind::MaxPool:
    case OpKind::AveragePool: pool(op); break;
    case OpKind::GlobalAveragePool: global_avg_pool(op); break;
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow: binary(op, *binary_of(n.kind)); break;
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Sqrt:
    case OpKind::HardSigmoid:
    case OpKind::HardSwish:
    case OpKind::Gelu: unary(op, *unary_of(n)); break;
    case OpKind::Flatten:
    case OpKind::Reshape:
      y.f = op.in(0).f;
      y.i = op.in(0).i;
      break;
    case OpKind::Concat: concat(op); break;
    case OpKind::Transpose: transpose(op); break;
    case OpKind::Slice: slice(op); break;
    case OpKind::Resize: resize(op); break;
    case OpKind::Softmax: softmax(op); break;
    case OpKind::ReduceMean: reduce_mean(op); break;
    case OpKind::LayerNormalization: layer_norm(op); break;
    case OpKind::Gemm: gemm(op); break;
    case OpKind::MatMul: matmul(op); break;
    case OpKind::QuantizeLinear: quantize_linear(op); break;
    case OpKind::DequantizeLinear: dequantize_linear(op); break;
    case OpKind::QLinearConv: qlinear_conv(op); break;
    default:
      throw UserError(where(n) + ": the host interpreter runs float graphs (imported ONNX "
                      "operators, before quantization), not Weft's int8 or accelerator kinds "
                      "(the int8 reference and the accelerator executor run those)");
  }
  return y;
}

template <typename T>
void Interpreter<T>::set_value(ValueId v, HostValue<T> h) {
  if (values_.size() != g_.num_values()) {
    values_.assign(g_.num_values(), HostValue<T>());
    ready_.assign(g_.num_values(), 0);
  }
  values_.at(static_cast<size_t>(v)) = std::move(h);
  ready_[static_cast<size_t>(v)] = 1;
}

template <typename T>
std::vector<HostValue<T>> Interpreter<T>::outputs() {
  std::vector<HostValue<T>> r;
  for (ValueId v : g_.outputs()) r.push_back(value(v));
  return r;
}

template <typename T>
std::vector<HostValue<T>> Interpreter<T>::run(std::vector<HostValue<T>> inputs,
                                              const HostValueObserver<T>& observe, Keep keep) {
  start(std::move(inputs));
  if (observe)
    for (ValueId v : g_.inputs()) observe(v, value(v));
  // kOutputsOnly: the step after which each value is read no more (calibration's peak memory,
  // and the fresh pages the kernel clears for it, become those of the widest cut of the graph).
  const std::vector<NodeId> order = g_.topo_order();
  constexpr size_t kKept = std::numeric_limits<size_t>::max();
  std::vector<size_t> last(g_.num_values(), kKept);
  if (keep == Keep::kOutputsOnly)
    for (size_t step = 0; step < order.size(); ++step)
      for (ValueId v : g_.node(order[step]).inputs)
        if (v != kNone) last[static_cast<size_t>(v)] = step;
  for (ValueId v : g_.outputs()) last[static_cast<size_t>(v)] = kKept;
  for (size_t step = 0; step < order.size(); ++step) {
    const Node& n = g_.node(order[step]);
    const HostValue<T>& y = run_node(n);
    if (observe) observe(n.outputs[0], y);
    for (ValueId v : n.inputs) {
      if (v == kNone || last[static_cast<size_t>(v)] != step) continue;
      values_[static_cast<size_t>(v)] = HostValue<T>();
      ready_[static_cast<size_t>(v)] = 0;
    }
  }
  return outputs();
}

template <typename T>
std::vector<std::vector<T>> interpret(const Graph& g, const std::vector<std::vector<T>>& inputs,
                                      const std::function<void(ValueId, const std::vector<T>&)>& observe) {
  const auto ins = g.inputs();
  std::vector<HostValue<T>> in(inputs.size());
  for (size_t k = 0; k < inputs.size() && k < ins.size(); ++k) {
    in[k].shape = g.value(ins[k]).type.shape;
    in[k].f = inputs[k];
  }
  HostValueObserver<T> see;
  if (observe)
    see = [&](ValueId v, const HostValue<T>& h) {
      if (h.dtype == DType::F32) observe(v, h.f);
    };
  std::vector<std::vector<T>> out;
  using Keep = typename Interpreter<T>::Keep;
  for (HostValue<T>& h : Interpreter<T>(g).run(std::move(in), see, Keep::kOutputsOnly)) {
    if (h.dtype == DType::F32) {
      out.push_back(std::move(h.f));
    } else {
      out.emplace_back(h.i.begin(), h.i.end());
    }
  }
  return out;
}

void run_float_node(const Graph& g, const Node& n, const std::vector<const float*>& in,
                    float* out) {
  Interpreter<float> it(g);
  it.set_value(n.outputs.at(0), {});  // sizes the value table; run_node overwrites it
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const ValueId v = n.inputs[k];
    if (v == kNone || g.value(v).is_constant()) continue;
    const TensorType& t = g.value(v).type;
    if (t.dtype != DType::F32 || k >= in.size() || !in[k])
      throw InternalError(where(n) + ": input " + std::to_string(k) + " is not a float tensor");
    HostValue<float> h;
    h.shape = t.shape;
    h.f.assign(in[k], in[k] + t.elements());
    it.set_value(v, std::move(h));
  }
  const HostValue<float>& y = it.run_node(n);
  if (y.dtype != DType::F32) throw InternalError(where(n) + ": the output is not float");
  std::copy(y.f.begin(), y.f.end(), out);
}

template class Interpreter<float>;
template class Interpreter<double>;
template std::vector<std::vector<float>> interpret<float>(
    const Graph&, const std::vector<std::vector<float>>&,
    const std::function<void(ValueId, const std::vector<float>&)>&);
template std::vector<std::vector<double>> interpret<double>(
    const Graph&, const std::vector<std::vector<double>>&,
    const std::function<void(ValueId, const std::vector<double>&)>&);

}  // namespace weft::compiler::graph
