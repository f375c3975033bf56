// The graph executor's LLVM CPU kernels; see llvm_kernels.h. Each operator is a tensor
// expression over plain (row-major) buffers with a small schedule (the innermost output axis
// vectorized where its extent allows); the rounding follows cpu_kernels.cc line for line:
//   shift_round(v, s) = (v + 2^(s-1)) >> s for s > 0, v * 2^-s otherwise
//   round_div(n, d)   = floor((2n + d) / 2d)      (half up, d > 0)
//   quantize(x)       = sat(round_even(clip(x * 2^-e, -128, 127)))   (x * 2^-e is exact)
#include "runtime/graph/llvm_kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>

#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"

namespace weft::rt::graph {

namespace ir = compiler::ir;
namespace te = compiler::te;
using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::Node;
using compiler::graph::OpKind;
using compiler::graph::TensorType;
using ir::Expr;
using ir::ForKind;
using IDT = ir::DType;

bool have_llvm_kernels() { return true; }

namespace {

// ---- the compiled-kernel cache ----

struct Compiled {
  std::unique_ptr<cpu::CpuKernel> kernel;
  std::mutex run_mu;  // a kernel's workspaces are shared by its callers
};

struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<Compiled>> kernels;
  LlvmKernelStats stats;
};
Cache& cache() {
  static Cache c;
  return c;
}

// The kernel for `key`, built by `make` (a CpuOp) and JIT-compiled on first use.
std::shared_ptr<Compiled> compiled(const std::string& key, const std::function<cpu::CpuOp()>& make) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.kernels.find(key);
  if (it != c.kernels.end()) return it->second;
  const auto t0 = std::chrono::steady_clock::now();
  auto k = std::make_shared<Compiled>();
  try {
    k->kernel = std::make_unique<cpu::CpuKernel>(make());
  } catch (const UserError& e) {
    throw InternalError("llvm graph kernel '" + key + "': " + e.what());
  }
  c.stats.compiled += 1;
  c.stats.compile_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c.kernels[key] = k;
}

cpu::CpuOp finish(te::Schedule& s, const std::vector<te::Tensor>& inputs, const te::Tensor& out) {
  cpu::CpuOp op;
  op.func = compiler::codegen::lower_func("weft_graph_kernel", s, inputs, {out});
  op.num_inputs = inputs.size();
  op.num_outputs = 1;
  return op;
}

// ---- expression helpers ----

Expr i32(int64_t v) { return ir::imm(v, IDT::kInt32); }
Expr i64(int64_t v) { return ir::imm(v, IDT::kInt64); }
Expr clamp(Expr v, Expr lo, Expr hi) { return ir::min(ir::max(std::move(v), std::move(lo)), std::move(hi)); }
Expr sat8(Expr v) {
  const IDT t = v->dtype;
  return ir::cast(IDT::kInt8, clamp(std::move(v), ir::imm(-128, t), ir::imm(127, t)));
}
// shift_round(v, s) in v's type.
Expr shift_round(Expr v, int s) {
  const IDT t = v->dtype;
  if (s > 0) return ir::shr(ir::add(v, ir::imm(int64_t{1} << (s - 1), t)), ir::imm(s, t));
  if (s == 0) return v;
  return ir::mul(v, ir::imm(int64_t{1} << -s, t));
}
// round_div(num, den) = floor((2 num + den) / (2 den)), den > 0.
Expr round_div(Expr num, Expr den) {
  return ir::floordiv(ir::add(ir::mul(num, ir::imm(2, num->dtype)), den),
                      ir::mul(den, ir::imm(2, den->dtype)));
}
// The integer type that holds int8 values shifted left by up to `left` bits, doubled.
IDT int_for(int left) { return left <= 22 ? IDT::kInt32 : IDT::kInt64; }

// The widest power-of-two vector width up to `max` that divides `extent` (1 when under 4).
int64_t vector_width(int64_t extent, int64_t max = 32) {
  for (int64_t w = max; w >= 4; w /= 2)
    if (extent % w == 0) return w;
  return 1;
}

// Vectorizes the innermost spatial axis of an element-wise stage.
void schedule_elementwise(te::Stage& st) {
  const te::IterVar last = st.axes().back();
  const int64_t w = vector_width(last->extent);
  if (w == last->extent) {
    st.set_kind(last, ForKind::kVectorized);
  } else if (w > 1) {
    auto [o, i] = st.split(last, w);
    st.set_kind(i, ForKind::kVectorized);
  }
}

// A flat element-wise kernel over `count` elements: y[i] = f(x0[i], x1[i], ...).
cpu::CpuOp elementwise(int64_t count, const std::vector<IDT>& in_types, IDT out_type,
                       const std::function<Expr(const std::vector<Expr>&)>& f) {
  std::vector<te::Tensor> ins;
  for (size_t k = 0; k < in_types.size(); ++k)
    ins.push_back(te::placeholder({count}, in_types[k], "X" + std::to_string(k)));
  te::Tensor y = te::compute(
      {count}, out_type,
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> xs;
        for (const te::Tensor& t : ins) xs.push_back(t(i));
        return f(xs);
      },
      "Y");
  te::Schedule s({y});
  schedule_elementwise(s[y]);
  return finish(s, ins, y);
}

// ---- pooling ----

struct Window {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, pt, pl, pb, pr;
  std::string str() const {
    return std::to_string(planes) + "x" + std::to_string(h) + "x" + std::to_string(w) + "->" +
           std::to_string(oh) + "x" + std::to_string(ow) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(sh) + "x" + std::to_string(sw) + " p" +
           std::to_string(pt) + "," + std::to_string(pl) + "," + std::to_string(pb) + "," +
           std::to_string(pr);
  }
  // Whether some tap of some window falls outside the input.
  bool needs_guard() const {
    return pt > 0 || pl > 0 || (oh - 1) * sh - pt + kh > h || (ow - 1) * sw - pl + kw > w;
  }
};

// The input row / column of output position `o` and tap `r`.
Expr tap(const Expr& o, const Expr& r, int64_t stride, int64_t pad) {
  return ir::add(ir::add(ir::mul(o, i64(stride)), r), i64(-pad));
}
Expr inside(const Expr& iy, const Expr& ix, const Window& s) {
  return ir::logical_and(ir::logical_and(ir::ge(iy, i64(0)), ir::lt(iy, i64(s.h))),
                         ir::logical_and(ir::ge(ix, i64(0)), ir::lt(ix, i64(s.w))));
}

// Puts the reduction loops of `st` between the outer output axes and a vectorized piece of the
// innermost one, so the window's taps run over a vector of output columns.
void schedule_window(te::Stage& st) {
  const auto ax = st.axes();
  const auto red = st.reduce_axes();
  const int64_t w = vector_width(ax.back()->extent, 16);
  if (w == 1) {
    std::vector<te::IterVar> order(ax.begin(), ax.end());
    order.insert(order.end(), red.begin(), red.end());
    st.reorder(order);
    return;
  }
  std::vector<te::IterVar> order(ax.begin(), ax.end() - 1);
  te::IterVar inner = ax.back();
  if (w < ax.back()->extent) {
    auto [o, i] = st.split(ax.back(), w);
    order.push_back(o);
    inner = i;
  }
  order.insert(order.end(), red.begin(), red.end());
  order.push_back(inner);
  st.reorder(order);
  st.set_kind(inner, ForKind::kVectorized);
}

// Max pooling of [planes, h, w] (int8 or float32). A tap outside the input never wins: each
// output row's input rows are first copied into a padded local buffer (lowest value outside
// the input), computed at the row loop, so the window's taps read it at affine indices; the
// taps are unrolled and LLVM's loop vectorizer takes the output columns (strided taps become
// interleaved vector loads, where clamped indices would be gathers).
cpu::CpuOp max_pool(const Window& s, IDT t) {
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, t, "X");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  const Expr lowest = t == IDT::kFloat32 ? ir::fimm(-3.4028234663852886e38) : ir::imm(-128, t);
  const int64_t ph = std::max(s.h + s.pt, (s.oh - 1) * s.sh + s.kh),
                pw = std::max(s.w + s.pl, (s.ow - 1) * s.sw + s.kw);
  te::Tensor xp = te::compute(
      {s.planes, ph, pw}, t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(i[1], i64(-s.pt)), ix = ir::add(i[2], i64(-s.pl));
        const Expr v = x({i[0], clamp(iy, i64(0), i64(s.h - 1)), clamp(ix, i64(0), i64(s.w - 1))});
        return ir::select(inside(iy, ix, s), v, lowest);
      },
      "X.pad");
  te::Tensor y = te::compute_reduce(
      {s.planes, s.oh, s.ow}, t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(ir::mul(i[1], i64(s.sh)), ir::ref(ry->var));
        const Expr ix = ir::add(ir::mul(i[2], i64(s.sw)), ir::ref(rx->var));
        return te::maximum(xp({i[0], iy, ix}), {ry, rx});
      },
      "Y");
  te::Schedule sc({y});
  te::Stage& st = sc[y];
  if (s.kh * s.kw <= 64) {
    st.set_kind(ry, ForKind::kUnrolled);
    st.set_kind(rx, ForKind::kUnrolled);
  }
  sc.set_scope(xp, ir::Scope::kLocal);
  sc[xp].compute_at(st, st.axes()[1]);
  return finish(sc, {x}, y);
}

// The taps of output (oy, ox) that count towards an average (inside the input, or with
// count_include_pad inside the padded input).
Expr tap_count(const Expr& oy, const Expr& ox, const Window& s, bool include_pad) {
  const Expr y0 = tap(oy, i64(0), s.sh, s.pt), x0 = tap(ox, i64(0), s.sw, s.pl);
  const Expr ky = i64(s.kh), kx = i64(s.kw);
  if (include_pad)
    return ir::mul(ir::sub(ir::min(ir::add(y0, ky), i64(s.h + s.pb)), y0),
                   ir::sub(ir::min(ir::add(x0, kx), i64(s.w + s.pr)), x0));
  return ir::mul(ir::sub(ir::min(ir::add(y0, ky), i64(s.h)), ir::max(y0, i64(0))),
                 ir::sub(ir::min(ir::add(x0, kx), i64(s.w)), ir::max(x0, i64(0))));
}

// Average pooling: the window's sum (a reduction computed per output, in registers), then
// `finish(sum, count)`.
cpu::CpuOp avg_pool(const Window& s, IDT in, IDT acc_t, IDT out, bool include_pad,
                    const std::function<Expr(const Expr&, const Expr&)>& fin) {
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, in, "X");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  const bool guard = s.needs_guard();
  te::Tensor acc = te::compute_reduce(
      {s.planes, s.oh, s.ow}, acc_t,
      [&](const std::vector<Expr>& i) {
        const Expr iy = tap(i[1], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[2], ir::ref(rx->var), s.sw, s.pl);
        Expr v = ir::cast(acc_t, x({i[0], guard ? clamp(iy, i64(0), i64(s.h - 1)) : iy,
                                    guard ? clamp(ix, i64(0), i64(s.w - 1)) : ix}));
        if (guard) v = ir::select(inside(iy, ix, s), v, ir::cast(acc_t, i64(0)));
        return te::sum(v, {ry, rx});
      },
      "Y.sum");
  te::Tensor y = te::compute(
      {s.planes, s.oh, s.ow}, out,
      [&](const std::vector<Expr>& i) {
        Expr cnt = tap_count(i[1], i[2], s, include_pad);
        return fin(acc(i), ir::max(cnt, i64(1)));
      },
      "Y");
  te::Schedule sc({y});
  schedule_window(sc[acc]);
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[1]);
  schedule_elementwise(sc[y]);
  return finish(sc, {x}, y);
}

Window window_of(const Graph& g, const Node& n) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  Window s{};
  s.planes = xt.shape[0] * xt.shape[1];
  s.h = xt.shape[2];
  s.w = xt.shape[3];
  s.oh = yt.shape[2];
  s.ow = yt.shape[3];
  if (n.kind == OpKind::GlobalAveragePool) {
    s.kh = s.h, s.kw = s.w, s.sh = s.sw = 1;
    return s;
  }
  const auto k = n.get_ints("kernel_shape"), st = n.get_ints("strides", {1, 1}),
             pd = n.get_ints("pads", {0, 0, 0, 0});
  s.kh = k.at(0), s.kw = k.at(1), s.sh = st.at(0), s.sw = st.at(1);
  s.pt = pd.at(0), s.pl = pd.at(1), s.pb = pd.at(2), s.pr = pd.at(3);
  return s;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

}  // namespace

// ---- per node ----

class LlvmNodeKernel {
 public:
  std::string key;
  std::shared_ptr<Compiled> k;
  // Constant buffers passed after the node's activations (bias, shifts).
  std::vector<std::vector<int32_t>> consts;
  // Which node inputs are passed (indices into run_llvm_node's `in`), in order.
  std::vector<size_t> inputs;
  // Packed kernels (make_llvm_packed_kernel): what each call computes. kIm2Col: `rows` output
  // rows (of `out_rows`) of every one of `planes` block planes, the first row a run-time
  // argument; kPool: `planes` block planes (of `total`), the first one a run-time argument.
  enum Packed { kNone, kIm2Col, kPool } packed = kNone;
  int64_t rows = 0, out_rows = 0, row_bytes = 0, planes = 0, total = 0, plane_bytes = 0;
  int64_t first_row = 0;  // kIm2Col: the band's first row (y0)
  int64_t workspace = 0;  // kIm2Col: bytes of the quantized window rows (a kernel workspace)
};

namespace {

// QConv / QDense: acc = sum(x * w) (int32), then the epilogue of quantize.h:
// v = (acc + bias) >> shift (wrapping add, arithmetic shift, per channel), [+ residual],
// clip(v, relu ? 0 : -128, 127).
std::shared_ptr<LlvmNodeKernel> qconv_kernel(const Graph& g, const Node& n) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const auto& wv = g.value(n.inputs[1]);
  const TensorType& yt = g.value(n.outputs[0]).type;
  if (wv.type.layout.kind != compiler::graph::Layout::Plain || xt.dtype != DType::I8 ||
      wv.type.dtype != DType::I8)
    return nullptr;
  const bool conv = n.kind == OpKind::QConv;
  const bool bias = n.inputs.size() > 2 && n.inputs[2] != compiler::graph::kNone;
  const bool res = conv && n.inputs.size() > 3 && n.inputs[3] != compiler::graph::kNone;
  const bool relu = n.facts.relu.value_or(false);
  const int64_t O = wv.type.shape[0];
  std::vector<int64_t> sh = n.facts.shifts.value_or(std::vector<int64_t>{});
  if (sh.empty()) sh.assign(static_cast<size_t>(O), n.facts.shift.value_or(0));
  for (int64_t v : sh)
    if (v < 0 || v > 31) return nullptr;
  auto node = std::make_shared<LlvmNodeKernel>();
  node->inputs = {0, 1};
  if (bias) node->inputs.push_back(2);
  if (res) node->inputs.push_back(3);
  node->consts.emplace_back(sh.begin(), sh.end());

  std::string key = std::string(conv ? "qconv" : "qdense") + " i8 " + xt.str() + " w" +
                    ints_str(wv.type.shape) + (bias ? " bias" : "") + (res ? " residual" : "") +
                    (relu ? " relu" : "");
  std::vector<int64_t> st, pd, dl;
  if (conv) {
    st = n.get_ints("strides", {1, 1});
    pd = n.get_ints("pads", {0, 0, 0, 0});
    dl = n.get_ints("dilations", {1, 1});
    key += " s" + ints_str(st) + " p" + ints_str(pd) + " d" + ints_str(dl) + " -> " + yt.str();
  }
  node->key = key;
  node->k = compiled(key, [&] {
    te::Tensor x = te::placeholder(xt.shape, IDT::kInt8, "X");
    te::Tensor w = te::placeholder(wv.type.shape, IDT::kInt8, "W");
    std::vector<te::Tensor> ins = {x, w};
    te::Tensor b, r;
    if (bias) ins.push_back(b = te::placeholder({O}, IDT::kInt32, "bias"));
    if (res) ins.push_back(r = te::placeholder(yt.shape, IDT::kInt8, "residual"));
    te::Tensor shifts = te::placeholder({O}, IDT::kInt32, "shifts");
    ins.push_back(shifts);
    const int ch = conv ? 1 : 1;  // the output channel axis (NCHW or [M, N])
    te::Tensor acc;
    if (conv) {
      const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
      const int64_t KH = wv.type.shape[2], KW = wv.type.shape[3];
      const te::IterVar rc = te::reduce_axis(C, "rc"), ry = te::reduce_axis(KH, "ry"),
                        rx = te::reduce_axis(KW, "rx");
      Window s{};
      s.h = H, s.w = W, s.oh = yt.shape[2], s.ow = yt.shape[3], s.kh = (KH - 1) * dl[0] + 1,
      s.kw = (KW - 1) * dl[1] + 1, s.sh = st[0], s.sw = st[1], s.pt = pd[0], s.pl = pd[1];
      // Padding: a zero-padded copy of the input (a workspace written first), so that the
      // taps read it at affine indices (contiguous vectors at stride 1, no gathers).
      te::Tensor src = x;
      int64_t pt = 0, pl = 0;
      if (s.needs_guard()) {
        const int64_t ph = std::max(H + s.pt, (s.oh - 1) * s.sh + s.kh),
                      pw = std::max(W + s.pl, (s.ow - 1) * s.sw + s.kw);
        src = te::compute(
            {xt.shape[0], C, ph, pw}, IDT::kInt8,
            [&](const std::vector<Expr>& i) {
              const Expr iy = ir::add(i[2], i64(-s.pt)), ix = ir::add(i[3], i64(-s.pl));
              const Expr v = x({i[0], i[1], clamp(iy, i64(0), i64(H - 1)),
                                clamp(ix, i64(0), i64(W - 1))});
              return ir::select(inside(iy, ix, s), v, ir::imm(0, IDT::kInt8));
            },
            "X.pad");
      } else {
        pt = s.pt, pl = s.pl;
      }
      acc = te::compute_reduce(
          yt.shape, IDT::kInt32,
          [&](const std::vector<Expr>& i) {
            const Expr iy = tap(i[2], ir::mul(ir::ref(ry->var), i64(dl[0])), s.sh, pt);
            const Expr ix = tap(i[3], ir::mul(ir::ref(rx->var), i64(dl[1])), s.sw, pl);
            const Expr v = ir::cast(IDT::kInt32, src({i[0], ir::ref(rc->var), iy, ix}));
            const Expr wk = ir::cast(
                IDT::kInt32, w({i[1], ir::ref(rc->var), ir::ref(ry->var), ir::ref(rx->var)}));
            return te::sum(ir::mul(v, wk), {rc, ry, rx});
          },
          "Y.acc");
    } else {
      const te::IterVar rk = te::reduce_axis(xt.shape[1], "rk");
      acc = te::compute_reduce(
          yt.shape, IDT::kInt32,
          [&](const std::vector<Expr>& i) {
            return te::sum(ir::mul(ir::cast(IDT::kInt32, x({i[0], ir::ref(rk->var)})),
                                   ir::cast(IDT::kInt32, w({i[1], ir::ref(rk->var)}))),
                           {rk});
          },
          "Y.acc");
    }
    te::Tensor y = te::compute(
        yt.shape, IDT::kInt8,
        [&](const std::vector<Expr>& i) {
          Expr v = acc(i);
          if (bias) v = ir::add(v, b({i[ch]}));
          v = ir::shr(v, shifts({i[ch]}));
          if (res) v = ir::add(v, ir::cast(IDT::kInt32, r(i)));
          return ir::cast(IDT::kInt8, clamp(v, i32(relu ? 0 : -128), i32(127)));
        },
        "Y");
    te::Schedule sc({y});
    te::Stage& a = sc[acc];
    const auto ax = a.axes();
    const auto red = a.reduce_axes();
    if (conv) {
      // Per output row: the row's accumulators (local), the reduction outside a vector of
      // output columns, then the epilogue over the row.
      std::vector<te::IterVar> order = {ax[0], ax[1], ax[2]};
      order.insert(order.end(), red.begin(), red.end());
      te::IterVar inner = ax[3];
      // Output columns in vectors where the taps are contiguous (stride 1); strided rows are
      // left to LLVM's loop vectorizer.
      const int64_t vw = st[1] == 1 ? vector_width(ax[3]->extent, 16) : 1;
      if (vw > 1 && vw < ax[3]->extent) {
        auto [o, i] = a.split(ax[3], vw);
        order.push_back(o);
        inner = i;
      }
      order.push_back(inner);
      a.reorder(order);
      if (vw > 1) a.set_kind(inner, ForKind::kVectorized);
      sc.set_scope(acc, ir::Scope::kLocal);
      a.compute_at(sc[y], sc[y].axes()[2]);
      schedule_elementwise(sc[y]);  // below the row loop the accumulators are computed at
    } else {
      // One accumulator per output, computed at the output's loop (a scalar in a register).
      sc.set_scope(acc, ir::Scope::kLocal);
      a.compute_at(sc[y], sc[y].axes()[1]);
    }
    return finish(sc, ins, y);
  });
  return node;
}

}  // namespace

std::shared_ptr<LlvmNodeKernel> make_llvm_node_kernel(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty()) return nullptr;
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  const bool plain = xt.layout.kind == compiler::graph::Layout::Plain &&
                     yt.layout.kind == compiler::graph::Layout::Plain;
  if (!plain) return nullptr;
  const int64_t count = yt.elements();
  auto node = std::make_shared<LlvmNodeKernel>();
  node->inputs = {0};
  auto make = [&](const std::string& key, const std::function<cpu::CpuOp()>& build) {
    node->key = key;
    node->k = compiled(key, build);
    return node;
  };
  const std::string shape = " " + std::to_string(count);
  switch (n.kind) {
    case OpKind::Quantize: {
      if (xt.dtype != DType::F32 || yt.dtype != DType::I8) return nullptr;
      const int e = yt.quant.exponent();
      return make("quantize f32->i8" + shape + " e" + std::to_string(e), [&] {
        return elementwise(count, {IDT::kFloat32}, IDT::kInt8, [&](const std::vector<Expr>& x) {
          // x * 2^-e is exact (a power of two); clipping before rounding saturates alike.
          const Expr v = ir::mul(x[0], ir::fimm(std::ldexp(1.0, -e)));
          return ir::cast(IDT::kInt8,
                          ir::round_even(clamp(v, ir::fimm(-128.0), ir::fimm(127.0))));
        });
      });
    }
    case OpKind::Dequantize: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::F32) return nullptr;
      const int e = xt.quant.exponent();
      return make("dequantize i8->f32" + shape + " e" + std::to_string(e), [&] {
        return elementwise(count, {IDT::kInt8}, IDT::kFloat32, [&](const std::vector<Expr>& x) {
          return ir::mul(ir::cast(IDT::kFloat32, x[0]), ir::fimm(std::ldexp(1.0, e)));
        });
      });
    }
    case OpKind::Relu:
    case OpKind::Clip: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::I8) return nullptr;
      int64_t lo = 0, hi = 127;
      if (n.kind == OpKind::Clip) {
        lo = static_cast<int64_t>(n.get_float("min", -128));
        hi = static_cast<int64_t>(n.get_float("max", 127));
      }
      return make("clip i8" + shape + " [" + std::to_string(lo) + "," + std::to_string(hi) + "]",
                  [&] {
                    return elementwise(count, {IDT::kInt8}, IDT::kInt8,
                                       [&](const std::vector<Expr>& x) {
                                         const Expr v = ir::cast(IDT::kInt32, x[0]);
                                         return ir::min(ir::max(v, i32(lo)), i32(hi));
                                       });
                  });
    }
    case OpKind::Requantize: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::I8) return nullptr;
      const int sa = yt.quant.exponent() - xt.quant.exponent();
      return make("requantize i8" + shape + " s" + std::to_string(sa), [&] {
        return elementwise(count, {IDT::kInt8}, IDT::kInt8, [&](const std::vector<Expr>& x) {
          return sat8(shift_round(ir::cast(int_for(-sa), x[0]), sa));
        });
      });
    }
    case OpKind::Add: {
      const TensorType& zt = g.value(n.inputs[1]).type;
      if (xt.dtype != DType::I8 || zt.dtype != DType::I8 || yt.dtype != DType::I8 ||
          zt.layout.kind != compiler::graph::Layout::Plain || xt.elements() != count ||
          zt.elements() != count)
        return nullptr;
      const int eo = yt.quant.exponent(), sa = eo - xt.quant.exponent(),
                sb = eo - zt.quant.exponent();
      node->inputs = {0, 1};
      const IDT t = int_for(std::max(-sa, -sb));
      return make("add i8" + shape + " s" + std::to_string(sa) + "," + std::to_string(sb), [&] {
        return elementwise(count, {IDT::kInt8, IDT::kInt8}, IDT::kInt8,
                           [&](const std::vector<Expr>& x) {
                             return sat8(ir::add(shift_round(ir::cast(t, x[0]), sa),
                                                 shift_round(ir::cast(t, x[1]), sb)));
                           });
      });
    }
    case OpKind::MaxPool: {
      if (xt.dtype != DType::I8 || xt.rank() != 4) return nullptr;
      if (n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return nullptr;
      const Window s = window_of(g, n);
      return make("maxpool i8 " + s.str(), [&] { return max_pool(s, IDT::kInt8); });
    }
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::I8 || xt.rank() != 4) return nullptr;
      const Window s = window_of(g, n);
      const bool incl = n.kind == OpKind::AveragePool && n.get_int("count_include_pad", 0) != 0;
      const int d = xt.quant.exponent() - yt.quant.exponent();
      // |sum| <= 128 k^2; the rounding doubles it and shifts it left by d.
      const IDT t = int_for(std::max(d, 0) + 8 + static_cast<int>(std::ceil(
                                                      std::log2(double(s.kh * s.kw)))));
      return make("avgpool i8 " + s.str() + (incl ? " incl" : "") + " d" + std::to_string(d), [&] {
        return avg_pool(s, IDT::kInt8, t, IDT::kInt8, incl, [&](const Expr& acc, const Expr& cnt) {
          const Expr c = ir::cast(t, cnt);
          const Expr r = d >= 0 ? round_div(ir::mul(acc, ir::imm(int64_t{1} << d, t)), c)
                                : round_div(acc, ir::mul(c, ir::imm(int64_t{1} << -d, t)));
          return sat8(r);
        });
      });
    }
    case OpKind::QConv:
    case OpKind::QDense:
      return qconv_kernel(g, n);
    default:
      return nullptr;
  }
}

void run_llvm_node(LlvmNodeKernel& k, const std::vector<const uint8_t*>& in, uint8_t* out) {
  std::vector<void*> bufs;
  for (size_t i : k.inputs) {
    if (i >= in.size() || !in[i])
      throw InternalError("llvm kernel '" + k.key + "': input " + std::to_string(i) + " is missing");
    bufs.push_back(const_cast<uint8_t*>(in[i]));
  }
  for (auto& c : k.consts) bufs.push_back(c.data());
  bufs.push_back(out);
  std::lock_guard<std::mutex> lock(k.k->run_mu);
  k.k->kernel->run(bufs);
}

// ---- packed outputs (kCpuPacked) ----

namespace {

// The packed geometry of a blocked int8 output type, as packed_io.cc's Blocks.
struct PackedGeom {
  int64_t N, C, H, W, bn, bc, NB, CB;
  explicit PackedGeom(const TensorType& t)
      : N(t.shape[0]), C(t.shape[1]), H(t.shape[2]), W(t.shape[3]), bn(t.layout.n),
        bc(t.layout.c), NB((N + bn - 1) / bn), CB((C + bc - 1) / bc) {}
};

Expr all(std::initializer_list<Expr> cs) {
  Expr r;
  for (const Expr& c : cs) r = r ? ir::logical_and(r, c) : c;
  return r;
}

// weft.Im2Col with a packed output, `R` output rows per call: Y[nb][cb][r][x][ln][lc] is
// column oc = cb*bc + lc of batch row bt = nb*bn + ln at output row r0 + r of the whole im2col
// (r0, the band's first row y0 plus the chunk's, read from the int32 argument R0, so the bands
// of one shape share one kernel): a tap of input channel oc / K^2 (quantized when the input is f32),
// or constant column consts[oc - CK^2], or 0 (padding lanes, taps outside the input).
cpu::CpuOp im2col_packed_op(const TensorType& xt, const TensorType& yt, int64_t R, int64_t K,
                            int64_t s, int64_t pt, int64_t pl, int64_t nconsts) {
  const PackedGeom g(yt);
  const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3], CKK = C * K * K;
  const int64_t WR = (R - 1) * s + K, WP = (g.W - 1) * s + K;  // the window's rows, columns
  const bool f32 = xt.dtype == DType::F32;
  te::Tensor x = te::placeholder(xt.shape, f32 ? IDT::kFloat32 : IDT::kInt8, "X");
  te::Tensor cs = te::placeholder({std::max<int64_t>(nconsts, 1)}, IDT::kInt32, "consts");
  te::Tensor r0 = te::placeholder({1}, IDT::kInt32, "R0");
  const double scale = f32 ? std::ldexp(1.0, -yt.quant.exponent()) : 1.0;
  // Stage 1, once per call: the input rows the chunk's windows read, quantized (f32) and
  // zero-padded (rows and columns outside the input), Q[bt][c][wr][wx] (a kernel workspace).
  te::Tensor q = te::compute(
      {g.N, C, WR, WP}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const Expr iy = ir::add(ir::add(ir::mul(ir::cast(IDT::kInt64, r0({i64(0)})), i64(s)), i[2]),
                                i64(-pt));
        const Expr ix = ir::add(i[3], i64(-pl));
        Expr v = x({i[0], i[1], clamp(iy, i64(0), i64(H - 1)), clamp(ix, i64(0), i64(W - 1))});
        if (f32)  // as weft.Quantize: x * 2^-e is exact; clip, then round half to even
          v = ir::cast(IDT::kInt8, ir::round_even(clamp(ir::mul(v, ir::fimm(scale)),
                                                        ir::fimm(-128.0), ir::fimm(127.0))));
        return ir::select(all({ir::ge(iy, i64(0)), ir::lt(iy, i64(H)), ir::ge(ix, i64(0)),
                               ir::lt(ix, i64(W))}),
                          v, ir::imm(0, IDT::kInt8));
      },
      "Q");
  // Stage 2: the gather, column by column.
  te::Tensor y = te::compute(
      {g.NB, g.CB, R, g.W, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const Expr bt = ir::add(ir::mul(i[0], i64(g.bn)), i[4]);
        const Expr oc = ir::add(ir::mul(i[1], i64(g.bc)), i[5]);
        const Expr c = ir::floordiv(oc, i64(K * K)), k = ir::floormod(oc, i64(K * K));
        const Expr v = q({clamp(bt, i64(0), i64(g.N - 1)), clamp(c, i64(0), i64(C - 1)),
                          ir::add(ir::mul(i[2], i64(s)), ir::floordiv(k, i64(K))),
                          ir::add(ir::mul(i[3], i64(s)), ir::floormod(k, i64(K)))});
        Expr cv = ir::imm(0, IDT::kInt8);
        if (nconsts > 0)
          cv = ir::select(ir::lt(oc, i64(CKK + nconsts)),
                          ir::cast(IDT::kInt8, cs({clamp(ir::add(oc, i64(-CKK)), i64(0),
                                                         i64(nconsts - 1))})),
                          ir::imm(0, IDT::kInt8));
        return ir::select(ir::lt(bt, i64(g.N)), ir::select(ir::lt(oc, i64(CKK)), v, cv),
                          ir::imm(0, IDT::kInt8));
      },
      "Y");
  // Column by column as the plain loop: the (batch row, column) loops outside, so the column's
  // input channel and tap (the divisions by K) are loop-invariant in the row and x loops.
  te::Schedule sc({y});
  const auto ax = sc[y].axes();
  sc[y].reorder({ax[0], ax[1], ax[4], ax[5], ax[2], ax[3]});
  schedule_elementwise(sc[q]);
  return finish(sc, {x, cs, r0}, y);
}

// MaxPool with a packed output, `per` block planes per call: Y[q][oy][ox][ln][lc] is the
// window maximum of plane (bt, c) = (nb*bn + ln, cb*bc + lc) where nb, cb = divmod(p0 + q,
// CB) (p0 read from the int32 argument P0); 0 in padding lanes and planes past the last.
cpu::CpuOp pool_packed_op(const TensorType& xt, const TensorType& yt, const Window& s,
                          int64_t per) {
  const PackedGeom g(yt);
  te::Tensor x = te::placeholder(xt.shape, IDT::kInt8, "X");
  te::Tensor p0 = te::placeholder({1}, IDT::kInt32, "P0");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  auto where = [&](const std::vector<Expr>& i) {
    const Expr p = ir::add(ir::cast(IDT::kInt64, p0({i64(0)})), i[0]);
    const Expr bt = ir::add(ir::mul(ir::floordiv(p, i64(g.CB)), i64(g.bn)), i[3]);
    const Expr c = ir::add(ir::mul(ir::floormod(p, i64(g.CB)), i64(g.bc)), i[4]);
    return std::make_pair(bt, c);
  };
  te::Tensor acc = te::compute_reduce(
      {per, s.oh, s.ow, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const auto [bt, c] = where(i);
        const Expr iy = tap(i[1], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[2], ir::ref(rx->var), s.sw, s.pl);
        const Expr v = x({clamp(bt, i64(0), i64(g.N - 1)), clamp(c, i64(0), i64(g.C - 1)),
                          clamp(iy, i64(0), i64(s.h - 1)), clamp(ix, i64(0), i64(s.w - 1))});
        return te::maximum(ir::select(inside(iy, ix, s), v, ir::imm(-128, IDT::kInt8)), {ry, rx});
      },
      "Y.max");
  te::Tensor y = te::compute(
      {per, s.oh, s.ow, g.bn, g.bc}, IDT::kInt8,
      [&](const std::vector<Expr>& i) {
        const auto [bt, c] = where(i);
        return ir::select(ir::logical_and(ir::lt(bt, i64(g.N)), ir::lt(c, i64(g.C))), acc(i),
                          ir::imm(0, IDT::kInt8));
      },
      "Y");
  te::Schedule sc({y});
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[4]);
  return finish(sc, {x, p0}, y);
}

}  // namespace

std::shared_ptr<LlvmNodeKernel> make_llvm_packed_kernel(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty()) return nullptr;
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  if (yt.layout.kind != compiler::graph::Layout::Blocked || yt.dtype != DType::I8 ||
      yt.rank() != 4 || xt.rank() != 4 || xt.layout.kind != compiler::graph::Layout::Plain)
    return nullptr;
  const PackedGeom pg(yt);
  auto node = std::make_shared<LlvmNodeKernel>();
  node->inputs = {0};
  const std::string lay = " n" + std::to_string(pg.bn) + "c" + std::to_string(pg.bc);
  if (n.kind == OpKind::Im2Col) {
    if (xt.dtype != DType::F32 && xt.dtype != DType::I8) return nullptr;
    const int64_t K = n.facts.kernel.value_or(1), s = n.facts.stride.value_or(1),
                  y0 = n.facts.y0.value_or(0);
    const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
    const auto consts = n.facts.consts.value_or(std::vector<int64_t>{});
    const int64_t CKK = xt.shape[1] * K * K;
    const int64_t nc = std::max<int64_t>(0, std::min<int64_t>(int64_t(consts.size()), pg.C - CKK));
    node->packed = LlvmNodeKernel::kIm2Col;
    node->planes = pg.NB * pg.CB;
    node->out_rows = pg.H;
    node->first_row = y0;
    node->row_bytes = pg.W * pg.bn * pg.bc;
    const int64_t row = node->planes * node->row_bytes;  // one output row of every plane
    node->rows = std::max<int64_t>(1, std::min(pg.H, kPackedChunkBytes / row));
    node->workspace = pg.N * xt.shape[1] * ((node->rows - 1) * s + K) * ((pg.W - 1) * s + K);
    std::vector<int32_t> cv(consts.begin(), consts.begin() + nc);
    if (cv.empty()) cv.push_back(0);
    node->consts.push_back(std::move(cv));
    node->key = "im2col->packed " + std::string(xt.dtype == DType::F32 ? "f32" : "i8") + " " +
                xt.str() + " k" + std::to_string(K) + " s" + std::to_string(s) + " p" +
                ints_str(pd) + " consts " + std::to_string(nc) +
                " e" + std::to_string(yt.quant.exponent()) + " -> " + ints_str(yt.shape) + lay +
                " rows " + std::to_string(node->rows);
    node->k = compiled(node->key, [&] {
      return im2col_packed_op(xt, yt, node->rows, K, s, pd.at(0), pd.at(1), nc);
    });
    return node;
  }
  if (n.kind == OpKind::MaxPool) {
    if (xt.dtype != DType::I8) return nullptr;
    if (n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return nullptr;
    const Window s = window_of(g, n);
    node->packed = LlvmNodeKernel::kPool;
    node->total = pg.NB * pg.CB;
    node->plane_bytes = pg.H * pg.W * pg.bn * pg.bc;
    node->planes = std::min(node->total, std::max<int64_t>(1, kPackedChunkBytes / node->plane_bytes));
    node->key = "maxpool->packed i8 " + ints_str(xt.shape) + " " + s.str() + " -> " +
                ints_str(yt.shape) + lay + " planes " + std::to_string(node->planes);
    node->k = compiled(node->key, [&] { return pool_packed_op(xt, yt, s, node->planes); });
    return node;
  }
  return nullptr;
}

int64_t run_llvm_packed(LlvmNodeKernel& k, const void* in, const PackedWriter& write) {
  if (k.packed == LlvmNodeKernel::kNone)
    throw InternalError("llvm kernel '" + k.key + "' has no packed output");
  std::lock_guard<std::mutex> lock(k.k->run_mu);
  if (k.packed == LlvmNodeKernel::kIm2Col) {
    std::vector<int8_t> buf(static_cast<size_t>(k.planes * k.rows * k.row_bytes));
    for (int64_t r0 = 0; r0 < k.out_rows; r0 += k.rows) {
      const int64_t nr = std::min<int64_t>(k.rows, k.out_rows - r0);
      int32_t row = static_cast<int32_t>(k.first_row + r0);
      k.k->kernel->run({const_cast<void*>(in), k.consts[0].data(), &row, buf.data()});
      for (int64_t p = 0; p < k.planes; ++p)
        write((p * k.out_rows + r0) * k.row_bytes, buf.data() + p * k.rows * k.row_bytes,
              nr * k.row_bytes);
    }
    return static_cast<int64_t>(buf.size()) + k.workspace;  // as packed_io.cc counts its window
  }
  std::vector<int8_t> buf(static_cast<size_t>(k.planes * k.plane_bytes));
  for (int32_t p0 = 0; p0 < k.total; p0 += static_cast<int32_t>(k.planes)) {
    const int64_t np = std::min<int64_t>(k.planes, k.total - p0);
    k.k->kernel->run({const_cast<void*>(in), &p0, buf.data()});
    write(p0 * k.plane_bytes, buf.data(), np * k.plane_bytes);
  }
  return static_cast<int64_t>(buf.size());
}

const std::string& llvm_node_kernel_key(const LlvmNodeKernel& k) { return k.key; }

LlvmKernelStats llvm_kernel_stats() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().stats;
}

// ---- float32 kernels ----

bool llvm_clip_f32(const float* x, float* y, int64_t count, float lo, float hi) {
  if (count <= 0) return true;
  const std::string key = "clip f32 " + std::to_string(count) + " [" + std::to_string(lo) + "," +
                          std::to_string(hi) + "]";
  auto k = compiled(key, [&] {
    return elementwise(count, {IDT::kFloat32}, IDT::kFloat32, [&](const std::vector<Expr>& v) {
      Expr r = v[0];
      if (lo > -std::numeric_limits<float>::infinity()) r = ir::max(r, ir::fimm(lo));
      if (hi < std::numeric_limits<float>::infinity()) r = ir::min(r, ir::fimm(hi));
      return r;
    });
  });
  std::lock_guard<std::mutex> lock(k->run_mu);
  k->kernel->run({const_cast<float*>(x), y});
  return true;
}

namespace {

// Float average pooling: the window's sum times 1/count, the reciprocals a [oh, ow] input.
cpu::CpuOp avg_pool_f32(const Window& s) {
  te::Tensor x = te::placeholder({s.planes, s.h, s.w}, IDT::kFloat32, "X");
  te::Tensor recip = te::placeholder({s.oh, s.ow}, IDT::kFloat32, "recip");
  const te::IterVar ry = te::reduce_axis(s.kh, "ry"), rx = te::reduce_axis(s.kw, "rx");
  const bool guard = s.needs_guard();
  te::Tensor acc = te::compute_reduce(
      {s.planes, s.oh, s.ow}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) {
        const Expr iy = tap(i[1], ir::ref(ry->var), s.sh, s.pt);
        const Expr ix = tap(i[2], ir::ref(rx->var), s.sw, s.pl);
        Expr v = x({i[0], guard ? clamp(iy, i64(0), i64(s.h - 1)) : iy,
                    guard ? clamp(ix, i64(0), i64(s.w - 1)) : ix});
        if (guard) v = ir::select(inside(iy, ix, s), v, ir::fimm(0.0));
        return te::sum(v, {ry, rx});
      },
      "Y.sum");
  te::Tensor y = te::compute(
      {s.planes, s.oh, s.ow}, IDT::kFloat32,
      [&](const std::vector<Expr>& i) { return ir::mul(acc(i), recip({i[1], i[2]})); }, "Y");
  te::Schedule sc({y});
  schedule_window(sc[acc]);
  sc.set_scope(acc, ir::Scope::kLocal);
  sc[acc].compute_at(sc[y], sc[y].axes()[1]);
  schedule_elementwise(sc[y]);
  return finish(sc, {x, recip}, y);
}

}  // namespace

bool llvm_pool_f32(bool max, const float* x, float* y, int64_t planes, int64_t h, int64_t w,
                   int64_t oh, int64_t ow, const std::vector<int64_t>& kernel,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                   bool count_include_pad) {
  const Window s{planes, h, w, oh, ow, kernel.at(0), kernel.at(1), strides.at(0), strides.at(1),
                 pads.at(0), pads.at(1), pads.at(2), pads.at(3)};
  const std::string key = std::string(max ? "maxpool" : "avgpool") + " f32 " + s.str() +
                          (count_include_pad ? " incl" : "");
  auto k = compiled(key, [&] { return max ? max_pool(s, IDT::kFloat32) : avg_pool_f32(s); });
  std::vector<float> recip;
  if (!max) {
    // The host kernel's count: taps inside the input, or inside the padded input.
    recip.resize(static_cast<size_t>(oh * ow));
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q) {
        const int64_t y0 = r * s.sh - s.pt, x0 = q * s.sw - s.pl;
        const int64_t cy = count_include_pad ? std::min(y0 + s.kh, h + s.pb) - y0
                                             : std::min(y0 + s.kh, h) - std::max<int64_t>(y0, 0);
        const int64_t cx = count_include_pad ? std::min(x0 + s.kw, w + s.pr) - x0
                                             : std::min(x0 + s.kw, w) - std::max<int64_t>(x0, 0);
        const int64_t c = std::max<int64_t>(cy, 0) * std::max<int64_t>(cx, 0);
        recip[static_cast<size_t>(r * ow + q)] = c > 0 ? 1.0f / float(c) : 0.0f;
      }
  }
  std::lock_guard<std::mutex> lock(k->run_mu);
  if (max) {
    k->kernel->run({const_cast<float*>(x), y});
  } else {
    k->kernel->run({const_cast<float*>(x), recip.data(), y});
  }
  return true;
}

bool llvm_global_avg_pool_f32(const float* x, float* y, int64_t planes, int64_t hw) {
  if (planes <= 0 || hw <= 0) return true;
  auto k = compiled("gap f32 " + std::to_string(planes) + "x" + std::to_string(hw), [&] {
    te::Tensor xt = te::placeholder({planes, hw}, IDT::kFloat32, "X");
    const te::IterVar r = te::reduce_axis(hw, "r");
    te::Tensor acc = te::compute_reduce(
        {planes}, IDT::kFloat32,
        [&](const std::vector<Expr>& i) { return te::sum(xt({i[0], ir::ref(r->var)}), {r}); },
        "Y.sum");
    te::Tensor yt = te::compute(
        {planes}, IDT::kFloat32,
        [&](const std::vector<Expr>& i) { return ir::mul(acc(i), ir::fimm(1.0 / double(hw))); },
        "Y");
    te::Schedule sc({yt});
    sc.set_scope(acc, ir::Scope::kLocal);
    sc[acc].compute_at(sc[yt], sc[yt].axes()[0]);
    return finish(sc, {xt}, yt);
  });
  std::lock_guard<std::mutex> lock(k->run_mu);
  k->kernel->run({const_cast<float*>(x), y});
  return true;
}

bool llvm_scale_shift_f32(const float* x, const float* a, const float* b, float* y, int64_t n,
                          int64_t c, int64_t plane) {
  if (n * c * plane <= 0) return true;
  const std::string key = "scale_shift f32 " + std::to_string(n) + "x" + std::to_string(c) + "x" +
                          std::to_string(plane);
  auto k = compiled(key, [&] {
    te::Tensor xt = te::placeholder({n, c, plane}, IDT::kFloat32, "X");
    te::Tensor at = te::placeholder({c}, IDT::kFloat32, "A");
    te::Tensor bt = te::placeholder({c}, IDT::kFloat32, "B");
    te::Tensor yt = te::compute(
        {n, c, plane}, IDT::kFloat32,
        [&](const std::vector<Expr>& i) { return ir::add(ir::mul(xt(i), at({i[1]})), bt({i[1]})); },
        "Y");
    te::Schedule sc({yt});
    schedule_elementwise(sc[yt]);
    return finish(sc, {xt, at, bt}, yt);
  });
  std::lock_guard<std::mutex> lock(k->run_mu);
  k->kernel->run({const_cast<float*>(x), const_cast<float*>(a), const_cast<float*>(b), y});
  return true;
}

bool llvm_add_f32(const float* a, const float* b, float* y, int64_t count) {
  if (count <= 0) return true;
  auto k = compiled("add f32 " + std::to_string(count), [&] {
    return elementwise(count, {IDT::kFloat32, IDT::kFloat32}, IDT::kFloat32,
                       [&](const std::vector<Expr>& v) { return ir::add(v[0], v[1]); });
  });
  std::lock_guard<std::mutex> lock(k->run_mu);
  k->kernel->run({const_cast<float*>(a), const_cast<float*>(b), y});
  return true;
}

}  // namespace weft::rt::graph
