// The host interpreter of imported graphs; see cpu_graph.h. One template runs both paths:
// F = double is the float64 reference, F = float the fp32 path, where Conv, Gemm and MatMul
// go to JIT-compiled kernels of the LLVM CPU backend (LlvmGraphRunner::State), and Relu, Clip,
// MaxPool, AveragePool, GlobalAveragePool, BatchNormalization and same-shape Add to the graph kernels of
// llvm_kernels.h (compiled once per shape); the rest runs host_kernels.h's loops.
#include "runtime/graph/cpu_graph.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>

#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "compiler/ops/cpu/layout.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/graph/host_kernels.h"
#include "runtime/graph/llvm_kernels.h"

namespace weft::rt::graph {

namespace cpu_ops = compiler::ops::cpu;
using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::Node;
using compiler::graph::NodeId;
using compiler::graph::OpKind;
using compiler::graph::ValueId;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A value during a run: float values in `f`, integer ones (int8, int32) in `i`.
template <typename F>
struct Slot {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<F> f;
  std::vector<int32_t> i;
  bool ready = false;
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

}  // namespace

// The fp32 path's JIT kernels (compiled once per shape) and packed constant weights (once per
// node).
struct LlvmGraphRunner::State {
  explicit State(int threads) : pool(threads) {}
  cpu::ThreadPool pool;
  std::map<std::string, std::unique_ptr<cpu::CpuKernel>> kernels;
  std::map<NodeId, std::vector<float>> packed;  // conv: blocked weights; gemm: W [N, K]
  double compile_seconds = 0;

  cpu::CpuKernel& kernel(const std::string& key, const std::function<compiler::ops::LoweredOp()>& make) {
    auto it = kernels.find(key);
    if (it != kernels.end()) return *it->second;
    const auto t0 = Clock::now();
    auto k = std::make_unique<cpu::CpuKernel>(make());
    compile_seconds += since(t0);
    return *(kernels[key] = std::move(k));
  }

  // C[M, N] = A[M, K] W[N, K]^T.
  void dense(const float* a, const float* w, float* c, int64_t m, int64_t n, int64_t k) {
    cpu::CpuKernel& kern =
        kernel("dense " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
               [&] { return cpu_ops::dense(m, n, k, compiler::ir::DType::kFloat32); });
    kern.run({const_cast<float*>(a), const_cast<float*>(w), c}, &pool);
  }

  // NCHW conv2d, zero padding given per side (pre-padded here when asymmetric), equal strides.
  void conv2d(NodeId node, bool weights_constant, const float* x, const float* w, float* y,
              const Window2d& s, int64_t o) {
    std::vector<float> padded;
    const float* xin = x;
    int64_t h = s.h, wd = s.w, pad = s.pt;
    if (!(s.pt == s.pl && s.pt == s.pb && s.pt == s.pr)) {
      h = s.h + s.pt + s.pb;
      wd = s.w + s.pl + s.pr;
      padded.assign(static_cast<size_t>(s.n * s.c * h * wd), 0.0f);
      for (int64_t nc = 0; nc < s.n * s.c; ++nc)
        for (int64_t r = 0; r < s.h; ++r)
          std::memcpy(&padded[static_cast<size_t>((nc * h + r + s.pt) * wd + s.pl)],
                      x + (nc * s.h + r) * s.w, static_cast<size_t>(s.w) * 4);
      xin = padded.data();
      pad = 0;
    }
    compiler::ops::Conv2dNchw cs;
    cs.n = s.n, cs.c = s.c, cs.h = h, cs.w = wd, cs.o = o, cs.kh = s.kh, cs.kw = s.kw;
    cs.stride = s.sh, cs.pad = pad;
    const std::string key = "conv " + std::to_string(cs.n) + "," + std::to_string(cs.c) + "," +
                            std::to_string(cs.h) + "," + std::to_string(cs.w) + "," +
                            std::to_string(cs.o) + "," + std::to_string(cs.kh) + "," +
                            std::to_string(cs.kw) + "," + std::to_string(cs.stride) + "," +
                            std::to_string(cs.pad);
    cpu::CpuKernel& kern =
        kernel(key, [&] { return cpu_ops::conv2d(cs, compiler::ir::DType::kFloat32); });
    const int64_t cb = cpu_ops::conv_in_block(cs.c);
    std::vector<float> wpacked;
    const std::vector<float>* wb = nullptr;
    if (weights_constant && packed.count(node)) {
      wb = &packed[node];
    } else {
      const std::vector<float> wv(w, w + o * s.c * s.kh * s.kw);
      wpacked = cpu_ops::pack_conv_weights(wv, o, s.c, s.kh, s.kw, cb, cpu_ops::kConvOutBlock);
      if (weights_constant) {
        wb = &(packed[node] = std::move(wpacked));
      } else {
        wb = &wpacked;
      }
    }
    std::vector<float> xv(xin, xin + s.n * s.c * h * wd);
    std::vector<float> xb = cpu_ops::to_blocked(xv, s.n, s.c, h, wd, cb);
    const int64_t nob = (o + cpu_ops::kConvOutBlock - 1) / cpu_ops::kConvOutBlock;
    std::vector<float> yb(static_cast<size_t>(s.n * nob * s.oh * s.ow * cpu_ops::kConvOutBlock));
    kern.run({xb.data(), const_cast<float*>(wb->data()), yb.data()}, &pool);
    const std::vector<float> plain = cpu_ops::from_blocked(yb, s.n, o, s.oh, s.ow, cpu_ops::kConvOutBlock);
    std::memcpy(y, plain.data(), plain.size() * 4);
  }
};

namespace {

template <typename F>
class Interpreter {
 public:
  Interpreter(const Graph& g, LlvmGraphRunner::State* llvm) : g_(g), llvm_(llvm) {}

  GraphRun run(const std::vector<HostArray>& inputs) {
    check_inputs(g_, inputs);
    const auto t_all = Clock::now();
    slots_.assign(g_.num_values(), Slot<F>());
    const auto ins = g_.inputs();
    for (size_t k = 0; k < ins.size(); ++k) load(ins[k], inputs[k]);
    GraphRun r;
    for (NodeId id : g_.topo_order()) {
      const Node& n = g_.node(id);
      NodeRecord rec;
      rec.name = n.name;
      rec.op = compiler::graph::op_name(n.kind);
      rec.engine = "host";
      const auto t0 = Clock::now();
      rec.start = std::chrono::duration<double>(t0 - t_all).count();
      exec(n, rec);
      rec.seconds = since(t0);
      r.nodes.push_back(rec);
    }
    for (ValueId v : g_.outputs()) {
      const Slot<F>& s = slot(v);
      HostArray a;
      a.dtype = s.dtype;
      a.shape = s.shape;
      if (s.dtype == DType::F32) {
        a.data.assign(s.f.begin(), s.f.end());
      } else {
        a.data.assign(s.i.begin(), s.i.end());
      }
      r.outputs.push_back(std::move(a));
    }
    r.seconds = since(t_all);
    return r;
  }

 private:
  void load(ValueId v, const HostArray& a) {
    Slot<F>& s = slots_[static_cast<size_t>(v)];
    s.dtype = a.dtype;
    s.shape = a.shape;
    if (a.dtype == DType::F32) {
      s.f.assign(a.data.begin(), a.data.end());
    } else {
      s.i.resize(a.data.size());
      for (size_t k = 0; k < a.data.size(); ++k) s.i[k] = static_cast<int32_t>(a.data[k]);
    }
    s.ready = true;
  }

  // A value's slot; constants are converted on first use.
  Slot<F>& slot(ValueId v) {
    Slot<F>& s = slots_.at(static_cast<size_t>(v));
    if (s.ready) return s;
    const auto& val = g_.value(v);
    if (!val.is_constant())
      throw InternalError("value '" + val.name + "' is read before it is computed");
    if (val.type.layout.kind != compiler::graph::Layout::Plain)
      throw UserError("constant '" + val.name + "' is in a blocked layout; the CPU graph path "
                      "runs imported (plain-layout) graphs");
    s.dtype = val.type.dtype;
    s.shape = val.type.shape;
    const int64_t n = val.type.elements();
    switch (val.type.dtype) {
      case DType::F32: s.f.assign(val.data->f32(), val.data->f32() + n); break;
      case DType::I8: s.i.assign(val.data->i8(), val.data->i8() + n); break;
      case DType::I32: s.i.assign(val.data->i32(), val.data->i32() + n); break;
    }
    s.ready = true;
    return s;
  }
  Slot<F>& in(const Node& n, size_t k) { return slot(n.inputs.at(k)); }
  bool has_in(const Node& n, size_t k) const {
    return k < n.inputs.size() && n.inputs[k] != compiler::graph::kNone;
  }
  Slot<F>& out(const Node& n) {
    Slot<F>& s = slots_.at(static_cast<size_t>(n.outputs.at(0)));
    const auto& t = g_.value(n.outputs[0]).type;
    s.dtype = t.dtype;
    s.shape = t.shape;
    if (t.dtype == DType::F32) {
      s.f.assign(static_cast<size_t>(t.elements()), F(0));
    } else {
      s.i.assign(static_cast<size_t>(t.elements()), 0);
    }
    s.ready = true;
    return s;
  }
  bool is_const(const Node& n, size_t k) const { return g_.value(n.inputs.at(k)).is_constant(); }

  Window2d window(const Node& n, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                  int64_t kh, int64_t kw) const {
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

  // C[M, N] = A[M, K] W[N, K]^T, on the LLVM backend in the fp32 path.
  void dense(const F* a, const F* w, F* c, int64_t m, int64_t nn, int64_t k, NodeRecord& rec) {
    rec.macs += double(m) * double(nn) * double(k);
    if constexpr (std::is_same_v<F, float>) {
      if (llvm_) {
        rec.engine = "llvm";
        llvm_->dense(a, w, c, m, nn, k);
        return;
      }
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < nn; ++j) {
        F acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += a[i * k + q] * w[j * k + q];
        c[i * nn + j] = acc;
      }
  }

  // Relu/Clip of float values on the LLVM kernel (fp32 path only).
  bool jit_clip(Slot<F>& x, Slot<F>& y, float lo, float hi, NodeRecord& rec) {
    if constexpr (std::is_same_v<F, float>) {
      if (llvm_ && x.dtype == DType::F32 && llvm_clip_f32(x.f.data(), y.f.data(), x.elements(), lo, hi)) {
        rec.engine = "llvm";
        return true;
      }
    }
    return false;
  }

  static F quantize(F x, F scale, int32_t zp) {
    const F q = std::nearbyint(x / scale) + F(zp);
    return std::min(std::max(q, F(-128)), F(127));
  }

  // Per-axis parameter index of flat element `i` of `shape` along `axis` (0 when per tensor).
  static int64_t axis_index(const std::vector<int64_t>& shape, int64_t axis, int64_t count,
                            int64_t i) {
    if (count == 1) return 0;
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    return (i / inner) % shape[static_cast<size_t>(axis)];
  }

  void exec(const Node& n, NodeRecord& rec) {
    switch (n.kind) {
      case OpKind::Conv: {
        Slot<F>& x = in(n, 0);
        Slot<F>& w = in(n, 1);
        Slot<F>& y = out(n);
        const Window2d s = window(n, x.shape, y.shape, w.shape[2], w.shape[3]);
        const int64_t o = w.shape[0];
        rec.macs = double(y.elements()) * double(s.c * s.kh * s.kw);
        bool done = false;
        if constexpr (std::is_same_v<F, float>) {
          if (llvm_ && s.sh == s.sw && s.dh == 1 && s.dw == 1) {
            rec.engine = "llvm";
            llvm_->conv2d(n.id, is_const(n, 1), x.f.data(), w.f.data(), y.f.data(), s, o);
            done = true;
          }
        }
        if (!done) conv2d_kernel<F>(x.f.data(), w.f.data(), nullptr, y.f.data(), s, o);
        if (has_in(n, 2)) {
          const Slot<F>& b = in(n, 2);
          const int64_t plane = s.oh * s.ow;
          for (int64_t i = 0; i < y.elements(); ++i) y.f[i] += b.f[(i / plane) % o];
        }
        return;
      }
      case OpKind::BatchNormalization: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        int64_t plane = 1;
        for (size_t d = 2; d < x.shape.size(); ++d) plane *= x.shape[d];
        if constexpr (std::is_same_v<F, float>) {
          if (llvm_) {
            // The host kernel's per-channel factors, then x * a + b on the LLVM kernel.
            const F eps = F(n.get_float("epsilon", 1e-5));
            const F *sc = in(n, 1).f.data(), *bi = in(n, 2).f.data(), *mu = in(n, 3).f.data(),
                    *var = in(n, 4).f.data();
            std::vector<float> a(static_cast<size_t>(x.shape[1])), b(a.size());
            for (size_t k = 0; k < a.size(); ++k) {
              a[k] = sc[k] / std::sqrt(var[k] + eps);
              b[k] = bi[k] - mu[k] * a[k];
            }
            if (llvm_scale_shift_f32(x.f.data(), a.data(), b.data(), y.f.data(), x.shape[0],
                                     x.shape[1], plane)) {
              rec.engine = "llvm";
              return;
            }
          }
        }
        batch_norm_kernel<F>(x.f.data(), in(n, 1).f.data(), in(n, 2).f.data(), in(n, 3).f.data(),
                             in(n, 4).f.data(), F(n.get_float("epsilon", 1e-5)), y.f.data(),
                             x.shape[0], x.shape[1], plane);
        return;
      }
      case OpKind::Relu: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        if (jit_clip(x, y, 0.0f, std::numeric_limits<float>::infinity(), rec)) return;
        clip_kernel<F>(x.f.data(), y.f.data(), x.elements(), F(0),
                       std::numeric_limits<F>::infinity());
        return;
      }
      case OpKind::Clip: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        if (x.dtype == DType::F32) {
          F lo = -std::numeric_limits<F>::infinity(), hi = std::numeric_limits<F>::infinity();
          if (has_in(n, 1)) lo = in(n, 1).f.at(0);
          if (has_in(n, 2)) hi = in(n, 2).f.at(0);
          if (jit_clip(x, y, float(lo), float(hi), rec)) return;
          clip_kernel<F>(x.f.data(), y.f.data(), x.elements(), lo, hi);
        } else {
          int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
          if (has_in(n, 1)) lo = in(n, 1).i.at(0);
          if (has_in(n, 2)) hi = in(n, 2).i.at(0);
          clip_kernel<int32_t>(x.i.data(), y.i.data(), x.elements(), lo, hi);
        }
        return;
      }
      case OpKind::MaxPool:
      case OpKind::AveragePool: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        const auto k = n.get_ints("kernel_shape");
        const Window2d s = window(n, x.shape, y.shape, k[0], k[1]);
        if constexpr (std::is_same_v<F, float>) {
          if (llvm_ && x.dtype == DType::F32 && s.dh == 1 && s.dw == 1 &&
              llvm_pool_f32(n.kind == OpKind::MaxPool, x.f.data(), y.f.data(), s.n * s.c, s.h,
                            s.w, s.oh, s.ow, {s.kh, s.kw}, {s.sh, s.sw},
                            {s.pt, s.pl, s.pb, s.pr}, n.get_int("count_include_pad", 0) != 0)) {
            rec.engine = "llvm";
            return;
          }
        }
        if (n.kind == OpKind::AveragePool) {
          avg_pool_kernel<F>(x.f.data(), y.f.data(), s, n.get_int("count_include_pad", 0) != 0);
        } else if (x.dtype == DType::F32) {
          max_pool_kernel<F>(x.f.data(), y.f.data(), s);
        } else {
          max_pool_kernel<int32_t>(x.i.data(), y.i.data(), s);
        }
        return;
      }
      case OpKind::GlobalAveragePool: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        if constexpr (std::is_same_v<F, float>) {
          if (llvm_ && llvm_global_avg_pool_f32(x.f.data(), y.f.data(), x.shape[0] * x.shape[1],
                                                x.elements() / (x.shape[0] * x.shape[1]))) {
            rec.engine = "llvm";
            return;
          }
        }
        global_avg_pool_kernel<F>(x.f.data(), y.f.data(), x.shape[0] * x.shape[1],
                                  x.elements() / (x.shape[0] * x.shape[1]));
        return;
      }
      case OpKind::Add: {
        Slot<F>& a = in(n, 0);
        Slot<F>& b = in(n, 1);
        if (a.dtype != DType::F32)
          throw UserError("node '" + n.name + "' (Add): int8 Add is a quantized graph's; the "
                          "CPU graph path adds float32");
        Slot<F>& y = out(n);
        if constexpr (std::is_same_v<F, float>) {
          if (llvm_ && a.shape == b.shape && a.shape == y.shape &&
              llvm_add_f32(a.f.data(), b.f.data(), y.f.data(), y.elements())) {
            rec.engine = "llvm";
            return;
          }
        }
        add_kernel<F>(a.f.data(), a.shape, b.f.data(), b.shape, y.f.data(), y.shape);
        return;
      }
      case OpKind::Flatten:
      case OpKind::Reshape: {
        Slot<F>& x = in(n, 0);
        Slot<F>& y = out(n);
        y.f = x.f;
        y.i = x.i;
        return;
      }
      case OpKind::Concat: {
        Slot<F>& y = out(n);
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(y.shape.size());
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; ++d) outer *= y.shape[d];
        std::vector<int64_t> inner;
        std::vector<const F*> fp;
        std::vector<const int32_t*> ip;
        for (size_t k = 0; k < n.inputs.size(); ++k) {
          Slot<F>& x = in(n, k);
          inner.push_back(x.elements() / std::max<int64_t>(outer, 1));
          fp.push_back(x.f.data());
          ip.push_back(x.i.data());
        }
        if (y.dtype == DType::F32) {
          concat_kernel<F>(fp, inner, outer, y.f.data());
        } else {
          concat_kernel<int32_t>(ip, inner, outer, y.i.data());
        }
        return;
      }
      case OpKind::Gemm: {
        Slot<F>& a = in(n, 0);
        Slot<F>& b = in(n, 1);
        Slot<F>& y = out(n);
        const bool ta = n.get_int("transA", 0), tb = n.get_int("transB", 0);
        const int64_t m = y.shape[0], nn = y.shape[1], k = ta ? a.shape[0] : a.shape[1];
        // A as [M, K] and B as W[N, K] (the dense kernel's layouts).
        std::vector<F> at, wt;
        const F* ap = a.f.data();
        if (ta) {
          at.resize(static_cast<size_t>(m * k));
          for (int64_t i = 0; i < m; ++i)
            for (int64_t q = 0; q < k; ++q) at[i * k + q] = a.f[q * m + i];
          ap = at.data();
        }
        const F* wp = b.f.data();
        if (!tb) {
          wt.resize(static_cast<size_t>(nn * k));
          for (int64_t j = 0; j < nn; ++j)
            for (int64_t q = 0; q < k; ++q) wt[j * k + q] = b.f[q * nn + j];
          wp = wt.data();
        }
        dense(ap, wp, y.f.data(), m, nn, k, rec);
        const F alpha = F(n.get_float("alpha", 1.0)), beta = F(n.get_float("beta", 1.0));
        std::vector<int64_t> cs;
        const F* c = nullptr;
        if (has_in(n, 2)) {
          c = in(n, 2).f.data();
          cs = broadcast_strides(in(n, 2).shape, 2);
        }
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < nn; ++j) {
            F& v = y.f[i * nn + j];
            v = alpha * v + (c ? beta * c[i * cs[0] + j * cs[1]] : F(0));
          }
        return;
      }
      case OpKind::MatMul: {
        Slot<F>& a = in(n, 0);
        Slot<F>& b = in(n, 1);
        Slot<F>& y = out(n);
        auto as = a.shape, bs = b.shape;
        if (as.size() == 1) as.insert(as.begin(), 1);
        if (bs.size() == 1) bs.push_back(1);
        const int64_t m = as[as.size() - 2], k = as.back(), nn = bs.back();
        // Batch dimensions, broadcast.
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
        std::vector<F> wt(static_cast<size_t>(nn * k));
        for (int64_t t = 0; t < total; ++t) {
          int64_t rem = t, ia = 0, ib = 0;
          for (size_t d = rank; d-- > 0;) {
            const int64_t idx = rem % batch[d];
            rem /= batch[d];
            ia += idx * sa[d];
            ib += idx * sb[d];
          }
          const F* ap = a.f.data() + ia * m * k;
          const F* bp = b.f.data() + ib * k * nn;
          for (int64_t j = 0; j < nn; ++j)
            for (int64_t q = 0; q < k; ++q) wt[j * k + q] = bp[q * nn + j];
          dense(ap, wt.data(), y.f.data() + t * m * nn, m, nn, k, rec);
        }
        return;
      }
      case OpKind::QuantizeLinear: {
        Slot<F>& x = in(n, 0);
        Slot<F>& s = in(n, 1);
        Slot<F>& z = in(n, 2);
        Slot<F>& y = out(n);
        const int64_t axis = n.get_int("axis", 1), cnt = static_cast<int64_t>(s.f.size());
        for (int64_t i = 0; i < x.elements(); ++i) {
          const int64_t c = axis_index(x.shape, axis, cnt, i);
          y.i[i] = static_cast<int32_t>(quantize(x.f[i], s.f[c], z.i[c]));
        }
        return;
      }
      case OpKind::DequantizeLinear: {
        Slot<F>& x = in(n, 0);
        Slot<F>& s = in(n, 1);
        Slot<F>& y = out(n);
        const Slot<F>* z = has_in(n, 2) ? &in(n, 2) : nullptr;
        const int64_t axis = n.get_int("axis", 1), cnt = static_cast<int64_t>(s.f.size());
        for (int64_t i = 0; i < x.elements(); ++i) {
          const int64_t c = axis_index(x.shape, axis, cnt, i);
          y.f[i] = F(x.i[i] - (z ? z->i[c] : 0)) * s.f[c];
        }
        return;
      }
      case OpKind::QLinearConv: {
        Slot<F>& x = in(n, 0);
        Slot<F>& w = in(n, 3);
        Slot<F>& y = out(n);
        const Window2d s = window(n, x.shape, y.shape, w.shape[2], w.shape[3]);
        const int64_t o = w.shape[0];
        rec.macs = double(y.elements()) * double(s.c * s.kh * s.kw);
        const int32_t xz = in(n, 2).i.at(0), yz = in(n, 7).i.at(0);
        const double xs = in(n, 1).f.at(0), ys = in(n, 6).f.at(0);
        const Slot<F>& ws = in(n, 4);
        const Slot<F>& wz = in(n, 5);
        std::vector<int32_t> xc(x.i.size()), wc(w.i.size());
        for (size_t k = 0; k < x.i.size(); ++k) xc[k] = x.i[k] - xz;
        const int64_t per_o = s.c * s.kh * s.kw;
        for (size_t k = 0; k < w.i.size(); ++k)
          wc[k] = w.i[k] - wz.i[wz.i.size() == 1 ? 0 : k / per_o];
        std::vector<int32_t> acc(static_cast<size_t>(y.elements()));
        // Zero padding of the centred input is ONNX's padding with the zero point.
        conv2d_kernel<int32_t>(xc.data(), wc.data(), nullptr, acc.data(), s, o);
        const int64_t plane = s.oh * s.ow;
        for (int64_t i = 0; i < y.elements(); ++i) {
          const int64_t c = (i / plane) % o;
          int64_t a = acc[i];
          if (has_in(n, 8)) a += in(n, 8).i.at(c);
          const double scale = xs * double(ws.f[ws.f.size() == 1 ? 0 : c]) / ys;
          const double q = std::nearbyint(double(a) * scale) + yz;
          y.i[i] = static_cast<int32_t>(std::min(std::max(q, -128.0), 127.0));
        }
        return;
      }
      default:
        throw UserError(std::string("node '") + n.name + "' (" +
                        compiler::graph::op_name(n.kind) +
                        "): the CPU graph path runs imported ONNX operators, not Weft's "
                        "quantized or accelerator kinds (use the accelerator executor)");
    }
  }

  const Graph& g_;
  LlvmGraphRunner::State* llvm_;
  std::vector<Slot<F>> slots_;
};

}  // namespace

void check_inputs(const Graph& g, const std::vector<HostArray>& inputs) {
  const auto ins = g.inputs();
  if (inputs.size() != ins.size())
    throw UserError("the graph '" + g.name() + "' takes " + std::to_string(ins.size()) +
                    " input(s), " + std::to_string(inputs.size()) + " given");
  for (size_t k = 0; k < ins.size(); ++k) {
    const auto& v = g.value(ins[k]);
    if (inputs[k].dtype != v.type.dtype)
      throw UserError("input '" + v.name + "' must be " + compiler::graph::dtype_name(v.type.dtype) +
                      ", not " + compiler::graph::dtype_name(inputs[k].dtype));
    if (inputs[k].shape != v.type.shape)
      throw UserError("input '" + v.name + "' must have shape " +
                      compiler::graph::shape_str(v.type.shape) + ", not " +
                      compiler::graph::shape_str(inputs[k].shape));
    if (static_cast<int64_t>(inputs[k].data.size()) != inputs[k].elements())
      throw InternalError("input '" + v.name + "' holds the wrong number of values");
  }
}

GraphRun run_reference_f64(const Graph& g, const std::vector<HostArray>& inputs) {
  return Interpreter<double>(g, nullptr).run(inputs);
}

LlvmGraphRunner::LlvmGraphRunner(const Graph& g, int threads)
    : g_(g), state_(std::make_unique<State>(threads)) {}
LlvmGraphRunner::~LlvmGraphRunner() = default;

GraphRun LlvmGraphRunner::run(const std::vector<HostArray>& inputs) {
  return Interpreter<float>(g_, state_.get()).run(inputs);
}
double LlvmGraphRunner::compile_seconds() const { return state_->compile_seconds; }
int LlvmGraphRunner::kernels_compiled() const { return static_cast<int>(state_->kernels.size()); }

}  // namespace weft::rt::graph
