// The host paths of imported graphs; see cpu_graph.h. Both run compiler/graph's host
// interpreter (interpret.h): the float64 reference is Interpreter<double> on its own, the fp32
// path Interpreter<float> with this file's LLVM kernels as its KernelOverrides (Conv, Gemm and
// MatMul on JIT-compiled kernels of runtime/cpu, compiled once per shape with the schedule the
// shipped record or the host kind's dispatch table gives the shape; Relu, Clip, the pools,
// batch norm and the float element-wise operators, broadcasting ones included, on
// llvm_kernels.h's graph kernels). Convolutions leave their outputs in channel blocks and take
// on the Relu, Clip, residual Add or activation (a SiLU, a HardSwish) that only reads them
// (interpret.h's ConvEpilogue). What stays here is the conversion of HostArrays and the
// per-node records (time, engine, multiply-accumulates).
#include "runtime/graph/cpu_graph.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "compiler/graph/interpret.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/transformer_kernels.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "compiler/ops/cpu/depthwise_conv.h"
#include "compiler/ops/cpu/grouped_conv.h"
#include "compiler/ops/cpu/layout.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/graph/llvm_kernels.h"
#include "runtime/tune/cpu_dispatch.h"

namespace weft::rt::graph {

namespace cpu_ops = compiler::ops::cpu;

using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::HostValue;
using compiler::graph::Node;
using compiler::graph::NodeId;
using compiler::graph::OpKind;
using compiler::graph::Window2d;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename T>
HostValue<T> to_value(const HostArray& a) {
  if (static_cast<int64_t>(a.data.size()) != a.elements())
    throw InternalError("a host array of shape " + compiler::graph::shape_str(a.shape) +
                        " holds " + std::to_string(a.data.size()) + " values");
  HostValue<T> v;
  v.dtype = a.dtype;
  v.shape = a.shape;
  if (a.dtype == DType::F32) {
    v.f.assign(a.data.begin(), a.data.end());
  } else {
    v.i.resize(a.data.size());
    for (size_t k = 0; k < a.data.size(); ++k) v.i[k] = static_cast<int32_t>(a.data[k]);
  }
  return v;
}

template <typename T>
HostArray to_array(const HostValue<T>& v) {
  HostArray a;
  a.dtype = v.dtype;
  a.shape = v.shape;
  if (v.dtype == DType::F32) {
    a.data.assign(v.f.begin(), v.f.end());
  } else {
    a.data.assign(v.i.begin(), v.i.end());
  }
  return a;
}

}  // namespace

// The fp32 path's JIT kernels (compiled once per shape) and packed constant weights (once per
// node), offered to the interpreter node by node.
struct LlvmGraphRunner::State final : compiler::graph::KernelOverrides<float> {
  explicit State(int threads) : threads(threads), workers(threads) {}
  int threads;
  cpu::ThreadPool workers;
  std::map<std::string, std::unique_ptr<cpu::CpuKernel>> kernels;
  std::map<NodeId, std::vector<float>> packed;  // conv: blocked weights
  // MatMul and Gemm of a constant B [K, N]: W = B^T, by node and offset of B (a batch slice).
  std::map<std::pair<NodeId, int64_t>, std::vector<float>> transposed;
  // conv: the input in channel blocks, a blocked output, a plain copy of a blocked input and
  // non-constant weights in blocks, and the sums of a conv with an activation (act_in: never
  // shrunk, so that no layer zeroes or faults in its pages), kept across nodes and runs (fresh
  // pages for each were a large part of a small layer's time).
  std::vector<float> x_blocked, y_blocked, y_planes, x_plain, w_scratch, b_blocked, act_in;
  double compile_seconds = 0;
  bool used = false;  // the node now running took a JIT kernel
  // The runs' interpreter (made on the first run): its values keep their storage across runs.
  std::unique_ptr<compiler::graph::Interpreter<float>> interp;

  cpu::CpuKernel& kernel(const std::string& key, const std::function<compiler::ops::LoweredOp()>& make) {
    auto it = kernels.find(key);
    if (it != kernels.end()) return *it->second;
    const auto t0 = Clock::now();
    auto k = std::make_unique<cpu::CpuKernel>(make());
    compile_seconds += since(t0);
    return *(kernels[key] = std::move(k));
  }

  bool took(bool done) {
    used = used || done;
    return done;
  }

  bool dense(const float* a, const float* w, float* c, int64_t m, int64_t n, int64_t k) override {
    cpu::CpuKernel& kern =
        kernel("dense " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
               [&] {
                 return cpu_ops::dense(m, n, k, compiler::ir::DType::kFloat32,
                                       tune::dense_schedule_for(m, n, k, "float32", threads));
               });
    kern.run({const_cast<float*>(a), const_cast<float*>(w), c}, &workers);
    return took(true);
  }

  // x (shape `xs`) with its dimensions permuted: the fp32 path's JIT transpose, else the loops.
  static void permute(const float* x, const std::vector<int64_t>& xs,
                      const std::vector<int64_t>& perm, float* y) {
    if (!llvm_transpose_f32(x, xs, perm, y))
      compiler::graph::transpose_kernel<float>(x, xs, perm, y);
  }

  // B [K, N] as the dense kernel's W [N, K], transposed once for a constant B (a linear layer's
  // weight: before, every run transposed it again, most of a ViT's MatMul time).
  bool dense_kn(NodeId node, bool b_constant, int64_t b_offset, const float* a, const float* b,
                float* c, int64_t m, int64_t n, int64_t k) override {
    const auto key = std::make_pair(node, b_offset);
    auto it = b_constant ? transposed.find(key) : transposed.end();
    std::vector<float> fresh;
    const std::vector<float>* w = it != transposed.end() ? &it->second : &fresh;
    if (it == transposed.end()) {
      fresh.resize(static_cast<size_t>(k * n));
      permute(b, {k, n}, {1, 0}, fresh.data());
      if (b_constant) w = &(transposed[key] = std::move(fresh));
    }
    return dense(a, w->data(), c, m, n, k);
  }

  // The conv kernel of shape `cs` (compiled once per shape) and node's weights in its blocks
  // (packed once for constant weights).
  // `groups` > 1: a grouped conv (the schedule is the table's for one group's reduction);
  // `x_block` > 0: the input held in blocks of that many channels (conv2d.h).
  cpu::CpuKernel& conv_kernel(const compiler::ops::Conv2dNchw& cs, int64_t groups = 1,
                              int64_t x_block = 0) {
    const std::string key = "conv " + std::to_string(cs.n) + "," + std::to_string(cs.c) + "," +
                            std::to_string(cs.h) + "," + std::to_string(cs.w) + "," +
                            std::to_string(cs.o) + "," + std::to_string(cs.kh) + "," +
                            std::to_string(cs.kw) + "," + std::to_string(cs.stride) + "," +
                            std::to_string(cs.pad) + " groups " + std::to_string(groups) +
                            " x_block " + std::to_string(x_block);
    return kernel(key, [&] {
      compiler::ops::Conv2dNchw group = cs;
      group.c = cs.c / groups;
      return cpu_ops::conv2d(cs, compiler::ir::DType::kFloat32,
                             tune::conv2d_schedule_for(group, "float32", threads), groups, x_block);
    });
  }
  // The weights [O, C/group, KH, KW] of a conv of `group` groups, run as `group / merge` groups
  // (`merge` of them block-diagonal in one: zeros between), in the kernel's blocks.
  const float* conv_weights(NodeId node, bool weights_constant, const float* w,
                            const compiler::ops::Conv2dNchw& cs, int64_t cb, int64_t group = 1,
                            int64_t merge = 1) {
    auto it = packed.find(node);
    if (weights_constant && it != packed.end()) return it->second.data();
    const int64_t taps = cs.kh * cs.kw, cg = cs.c / group, og = cs.o / group, cm = cg * merge;
    std::vector<float> wv(static_cast<size_t>(cs.o * cm * taps), 0.0f);
    for (int64_t oc = 0; oc < cs.o; ++oc) {
      const int64_t at = ((oc / og) % merge) * cg;  // its group's channels within the merged ones
      std::copy(w + oc * cg * taps, w + (oc + 1) * cg * taps, wv.begin() + (oc * cm + at) * taps);
    }
    std::vector<float> p = cpu_ops::pack_conv_weights(wv, cs.o, cm, cs.kh, cs.kw, cb,
                                                      cpu_ops::kConvOutBlock);
    std::vector<float>& kept = weights_constant ? packed[node] : w_scratch;
    kept = std::move(p);
    return kept.data();
  }

  // [N, C, H, W] (cb divides C) in channel blocks [N, C/cb, H, W, cb] at x_blocked: a transpose
  // of the two inner dimensions of [N * C/cb, cb, H*W].
  const float* to_blocks(const float* x, int64_t n, int64_t c, int64_t plane, int64_t cb) {
    x_blocked.resize(static_cast<size_t>(n * c * plane));
    permute(x, {n * (c / cb), cb, plane}, {0, 2, 1}, x_blocked.data());
    return x_blocked.data();
  }

  // Blocked [N, ceil(C/cb), plane, cb] to [N, C, plane] at y: the inverse transpose; a partial
  // last block goes through y_planes and only its channels are copied out.
  void from_blocks(const float* x, int64_t n, int64_t c, int64_t plane, int64_t cb, float* y) {
    const int64_t nb = (c + cb - 1) / cb;
    if (c == nb * cb) {
      permute(x, {n * nb, plane, cb}, {0, 2, 1}, y);
      return;
    }
    y_planes.resize(static_cast<size_t>(n * nb * cb * plane));
    permute(x, {n * nb, plane, cb}, {0, 2, 1}, y_planes.data());
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(y + i * c * plane, y_planes.data() + i * nb * cb * plane,
                  static_cast<size_t>(c * plane) * sizeof(float));
  }

  bool unblock(const HostValue<float>& x, float* y) override {
    const int64_t n = x.shape.at(0), c = x.shape.at(1);
    from_blocks(x.f.data(), n, c, x.elements() / (n * c), x.cblock, y);
    return true;
  }

  // The conv's output stays in the kernel's blocks of 16 output channels, where the next
  // convolution reads it as it is (a Relu, an Add or a MaxPool between them keeps the blocks):
  // the NCHW round trip around every convolution was a large part of a ResNet's run. A
  // depthwise conv reads and writes the same blocks (MobileNet's expansion, depthwise layer and
  // projection never leave them).
  bool conv2d_blocked(NodeId node, bool weights_constant, const HostValue<float>& x,
                      const float* w, const float* bias, HostValue<float>& y, const Window2d& s,
                      int64_t o, int64_t group, compiler::graph::ConvEpilogue<float>& ep) override {
    float* sums = nullptr;  // where the convolution's sums are: y, or act_in (below)
    if (group > 1 && group == s.c && group == o) {
      // Without a residual the kernel takes the bias and the clip itself; with one (never in
      // the torchvision networks) the pass below adds bias and residual, then clips.
      const bool own = !ep.residual;
      depthwise(node, weights_constant, x, w, own ? bias : nullptr, own && ep.clip, ep.lo, ep.hi,
                own ? ep.act : std::nullopt, y, s);
      if (own) {
        ep.applied = true;
        return took(true);
      }
      sums = y.f.data();
    } else {
      // conv2d pads asymmetric windows; grouped_conv2d takes unequal strides.
      if (!(s.pt == s.pl && s.pt == s.pb && s.pt == s.pr) || s.sh != s.sw) return false;
      // A grouped conv (ResNeXt, RegNet) runs as groups of whole blocks of 16 output channels:
      // groups with fewer are merged (block-diagonal weights, zeros between: ResNeXt-50's 4 and
      // 8 channels a group do 4 and 2 times their MACs) when they divide 16.
      const int64_t ob = cpu_ops::kConvOutBlock, og = o / group;
      int64_t merge = 1;
      if (group > 1 && og % ob) {
        if (ob % og || group % (ob / og)) return false;
        merge = ob / og;
      }
      compiler::ops::Conv2dNchw cs;
      cs.n = s.n, cs.c = s.c, cs.h = s.h, cs.w = s.w, cs.o = o, cs.kh = s.kh, cs.kw = s.kw;
      cs.stride = s.sh, cs.pad = s.pt;
      const int64_t cb = cpu_ops::conv_in_block(cs.c / (group / merge));
      // An input in blocks of a multiple of the kernel's (24 channels in blocks of 16 for a
      // kernel of 8) is read as it is; other layouts are converted.
      const bool as_held = x.cblock > cb && x.cblock % cb == 0;
      cpu::CpuKernel& kern = conv_kernel(cs, group / merge, as_held ? x.cblock : 0);
      const float* wb = conv_weights(node, weights_constant, w, cs, cb, group, merge);
      const float* xb = as_held ? x.f.data() : in_blocks(x, cb);
      const int64_t nob = (o + ob - 1) / ob;
      y.cblock = ob;
      y.f.resize(static_cast<size_t>(s.n * nob * s.oh * s.ow * ob));
      // With an activation after it, the sums and their epilogue go to a buffer of their own
      // and the activation's kernel writes y (its buffers may not overlap).
      sums = y.f.data();
      if (ep.act && residual_fits(ep, y)) {
        if (act_in.size() < y.f.size()) act_in.resize(y.f.size());
        sums = act_in.data();
      }
      kern.run({const_cast<float*>(xb), const_cast<float*>(wb), sums}, &workers);
    }
    // One pass for the bias and what the epilogue brings: a residual held in the same blocks
    // (a ResNet block's Add), then ReLU.
    const float* res = ep.residual && residual_fits(ep, y) ? ep.residual->f.data() : nullptr;
    ep.applied = res || !ep.residual;
    const bool clip = ep.applied && ep.clip;
    if (bias || res || clip) epilogue(sums, bias, res, clip, ep.lo, ep.hi, s.n, o, s.oh * s.ow);
    if (!ep.applied || sums == y.f.data()) {
      ep.act.reset();  // (a depthwise conv with a residual) the activation runs as its nodes
    } else {
      // The activation's JIT kernel over the blocks (their spare lanes too): the same bits as
      // its nodes, and one pass for a SiLU's Sigmoid and Mul.
      llvm_unary_f32(*ep.act, sums, y.f.data(), static_cast<int64_t>(y.f.size()));
    }
    return took(true);
  }

  // Whether the epilogue's residual, if any, is held in y's blocks and size (the pass adds it).
  static bool residual_fits(const compiler::graph::ConvEpilogue<float>& ep,
                            const HostValue<float>& y) {
    return !ep.residual ||
           (ep.residual->cblock == y.cblock && ep.residual->f.size() == y.f.size());
  }

  // x (held plain or in blocks of any size) in channel blocks of cb: as it is when it is held
  // so; else at x_blocked, a partial last block's spare lanes zero.
  const float* in_blocks(const HostValue<float>& x, int64_t cb) {
    if (x.cblock == cb) return x.f.data();
    const int64_t n = x.shape.at(0), c = x.shape.at(1), plane = x.elements() / (n * c);
    const float* plain = x.f.data();
    if (x.cblock) {
      x_plain.resize(static_cast<size_t>(x.elements()));
      unblock(x, x_plain.data());
      plain = x_plain.data();
    }
    if (c % cb == 0) return to_blocks(plain, n, c, plane, cb);
    x_blocked = cpu_ops::to_blocked(plain, n, c, 1, plane, cb);
    return x_blocked.data();
  }

  // y = the depthwise conv of x (group = C = O) in blocks of 16, plus `bias` (null: none), then
  // with `clip` min(max(., lo), hi), or with `act` that activation.
  void depthwise(NodeId node, bool weights_constant, const HostValue<float>& x, const float* w,
                 const float* bias, bool clip, float lo, float hi,
                 const std::optional<compiler::ops::Unary>& act, HostValue<float>& y,
                 const Window2d& s) {
    cpu_ops::DepthwiseConv dc{s.n,  s.c,  s.h,  s.w,  s.kh, s.kw, s.sh,
                              s.sw, s.pt, s.pl, s.pb, s.pr, s.oh, s.ow};
    dc.bias = bias != nullptr, dc.clip = clip, dc.lo = lo, dc.hi = hi, dc.act = act;
    cpu::CpuKernel& kern =
        kernel("depthwise conv " + dc.str(), [&] { return cpu_ops::depthwise_conv2d(dc); });
    // Weights (and bias) in blocks, packed once for a constant weight.
    auto it = packed.find(node);
    std::vector<float>* wb = nullptr;
    if (weights_constant && it != packed.end()) {
      wb = &it->second;
    } else {
      wb = weights_constant ? &packed[node] : &w_scratch;
      *wb = cpu_ops::pack_depthwise_weights(w, s.c, s.kh, s.kw);
    }
    std::vector<void*> args{const_cast<float*>(in_blocks(x, cpu_ops::kDepthwiseBlock)), wb->data()};
    if (bias) {
      b_blocked = cpu_ops::pack_depthwise_weights(bias, s.c, 1, 1);
      args.push_back(b_blocked.data());
    }
    y.cblock = cpu_ops::kDepthwiseBlock;
    y.f.resize(static_cast<size_t>(s.n * dc.blocks() * s.oh * s.ow * cpu_ops::kDepthwiseBlock));
    args.push_back(y.f.data());
    kern.run(args, &workers);
  }

  static_assert(cpu_ops::kDepthwiseBlock == cpu_ops::kConvOutBlock,
                "the epilogue pass takes both convolutions' outputs in blocks of 16");
  // y (blocked: [N, O/16, plane, 16]) = min(max(y + bias + res, lo), hi), each part where
  // given: one task per (image, channel block) on the pool, the parts chosen outside the loops,
  // the 16 lanes of a position a loop of fixed count over unaliased pointers (GCC's -O2
  // vectorizes it; with an alias check to make instead, it did not, and the pass took 3x as long).
  struct Epilogue {
    float* y;
    const float *bias, *res;
    float lo, hi;
    int64_t nob, o, plane;
  };
  // Positions [begin, end) of one block (GCC honours __restrict__ on parameters).
  template <bool kRes, bool kClip>
  static void epilogue_lanes(float* __restrict__ y, const float* __restrict__ lanes,
                             const float* __restrict__ res, float lo, float hi, int64_t begin,
                             int64_t end) {
    constexpr int64_t ob = cpu_ops::kConvOutBlock;
    for (int64_t p = begin; p < end; p += ob)
      for (int64_t l = 0; l < ob; ++l) {
        float v = y[p + l] + lanes[l];
        if constexpr (kRes) v += res[p + l];
        if constexpr (kClip) v = std::min(std::max(v, lo), hi);  // as clip_kernel: a NaN stays
        y[p + l] = v;
      }
  }
  template <bool kRes, bool kClip>
  static void epilogue_block(int64_t task, void* closure) {
    const Epilogue& e = *static_cast<const Epilogue*>(closure);
    constexpr int64_t ob = cpu_ops::kConvOutBlock;
    const int64_t b = task % e.nob, begin = task * e.plane * ob;
    float lanes[ob];
    for (int64_t l = 0; l < ob; ++l) lanes[l] = e.bias && b * ob + l < e.o ? e.bias[b * ob + l] : 0.0f;
    epilogue_lanes<kRes, kClip>(e.y, lanes, e.res, e.lo, e.hi, begin, begin + e.plane * ob);
  }
  void epilogue(float* y, const float* bias, const float* res, bool clip, float lo, float hi,
                int64_t n, int64_t o, int64_t plane) {
    const int64_t nob = (o + cpu_ops::kConvOutBlock - 1) / cpu_ops::kConvOutBlock;
    Epilogue e{y, bias, res, lo, hi, nob, o, plane};
    const cpu::TaskFn f = res ? (clip ? &epilogue_block<true, true> : &epilogue_block<true, false>)
                              : (clip ? &epilogue_block<false, true> : &epilogue_block<false, false>);
    workers.parallel_for(n * nob, f, &e);
  }

  // NCHW conv2d with asymmetric padding (conv2d_blocked takes the rest): pre-padded here, in
  // and out of the kernel's blocks.
  bool conv2d(NodeId node, bool weights_constant, const float* x, const float* w, float* y,
              const Window2d& s, int64_t o) override {
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
    cpu::CpuKernel& kern = conv_kernel(cs);
    const int64_t cb = cpu_ops::conv_in_block(cs.c);
    const float* wb = conv_weights(node, weights_constant, w, cs, cb);
    const float* xb = to_blocks(xin, s.n, s.c, h * wd, cb);
    const int64_t ob = cpu_ops::kConvOutBlock, nob = (o + ob - 1) / ob, ohw = s.oh * s.ow;
    y_blocked.resize(static_cast<size_t>(s.n * nob * ohw * ob));
    kern.run({const_cast<float*>(xb), const_cast<float*>(wb), y_blocked.data()}, &workers);
    from_blocks(y_blocked.data(), s.n, o, ohw, ob, y);
    return took(true);
  }

  bool grouped_conv2d(const float* x, const float* w, float* y, const Window2d& s, int64_t o,
                      int64_t group) override {
    const cpu_ops::GroupedConv gc{s.n, s.c, s.h, s.w, o, group, s.kh, s.kw,
                                  s.sh, s.sw, s.pt, s.pl, s.oh, s.ow};
    cpu::CpuKernel& kern =
        kernel("grouped conv " + gc.str(), [&] { return cpu_ops::grouped_conv2d(gc); });
    kern.run({const_cast<float*>(x), const_cast<float*>(w), y}, &workers);
    return took(true);
  }

  bool clip(const float* x, float* y, int64_t count, float lo, float hi) override {
    return took(llvm_clip_f32(x, y, count, lo, hi));
  }

  bool pool(bool max, const float* x, float* y, const Window2d& s, bool incl) override {
    return took(llvm_pool_f32(max, x, y, s.n * s.c, s.h, s.w, s.oh, s.ow, {s.kh, s.kw},
                              {s.sh, s.sw}, {s.pt, s.pl, s.pb, s.pr}, incl));
  }

  bool global_avg_pool(const float* x, float* y, int64_t planes, int64_t plane) override {
    return took(llvm_global_avg_pool_f32(x, y, planes, plane));
  }

  // Per-channel factors in float, then x * a + b on the LLVM kernel.
  bool batch_norm(const float* x, const float* sc, const float* bi, const float* mu,
                  const float* var, double eps, float* y, int64_t n, int64_t c,
                  int64_t plane) override {
    const float e = static_cast<float>(eps);
    std::vector<float> a(static_cast<size_t>(c)), b(a.size());
    for (size_t k = 0; k < a.size(); ++k) {
      a[k] = sc[k] / std::sqrt(var[k] + e);
      b[k] = bi[k] - mu[k] * a[k];
    }
    return took(llvm_scale_shift_f32(x, a.data(), b.data(), y, n, c, plane));
  }

  bool unary(const compiler::ops::Unary& u, const float* x, float* y, int64_t count) override {
    return took(llvm_unary_f32(u, x, y, count));
  }

  bool binary(compiler::ops::BinaryFn f, const float* a, const std::vector<int64_t>& as,
              const float* b, const std::vector<int64_t>& bs, float* y,
              const std::vector<int64_t>& ys) override {
    return took(llvm_binary_f32(f, a, as, b, bs, y, ys));
  }

  bool softmax(const float* x, const std::vector<int64_t>& xs, int64_t axis, float* y) override {
    const auto s = compiler::graph::split_at(xs, axis);
    return took(llvm_softmax_f32(x, y, s.outer, s.n, s.inner));
  }

  bool transpose(const float* x, const std::vector<int64_t>& xs, const std::vector<int64_t>& perm,
                 float* y) override {
    return took(llvm_transpose_f32(x, xs, perm, y));
  }

  bool slice(const float* x, const std::vector<int64_t>& xs, size_t axis, int64_t begin,
             int64_t end, int64_t step, float* y) override {
    return took(llvm_slice_f32(x, xs, axis, begin, end, step, y));
  }

  bool reduce_mean(const float* x, const std::vector<int64_t>& xs,
                   const std::vector<bool>& reduced, float* y) override {
    return took(llvm_reduce_mean_f32(x, xs, reduced, y));
  }

  bool resize(const float* x, const std::vector<int64_t>& xs,
              const std::vector<compiler::graph::ResizeAxis>& axes, float* y) override {
    return took(llvm_resize_f32(x, xs, axes, y));
  }

  bool layer_norm(const float* x, const std::vector<int64_t>& xs, int64_t axis, double eps,
                  const float* scale, int64_t scale_n, const float* bias, int64_t bias_n,
                  float* y) override {
    const auto s = compiler::graph::split_at(xs, axis);  // rows: outer; a row: n x inner
    return took(llvm_layer_norm_f32(x, scale, bias, y, s.outer, s.n * s.inner, eps, scale_n,
                                    bias ? bias_n : 0));
  }
};

namespace {

// One run of `g` on `interp`: node by node, each timed and labelled ("llvm" when the
// interpreter's overrides took its work: they set `*took`; "fused" when the convolution before
// it did), stopping before a node once `*cancelled` is set.
template <typename T>
GraphRun run_graph(const Graph& g, compiler::graph::Interpreter<T>& interp,
                   const std::vector<HostArray>& inputs, bool* took,
                   const std::atomic<bool>* cancelled = nullptr) {
  std::vector<HostValue<T>> values;
  for (const HostArray& a : inputs) values.push_back(to_value<T>(a));
  const auto t_all = Clock::now();
  interp.start(std::move(values));
  GraphRun r;
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    if (cancelled && *cancelled)
      throw UserError("the run was cancelled before node '" + n.name + "'");
    NodeRecord rec;
    rec.name = n.name;
    rec.op = compiler::graph::op_name(n.kind);
    rec.macs = double(compiler::graph::passes::node_macs(g, n));
    if (took) *took = false;
    const auto t0 = Clock::now();
    rec.start = std::chrono::duration<double>(t0 - t_all).count();
    interp.run_node(n);
    rec.seconds = since(t0);
    rec.engine = interp.folded(id) ? "fused" : took && *took ? "llvm" : "host";
    r.nodes.push_back(rec);
  }
  for (const HostValue<T>& v : interp.outputs()) r.outputs.push_back(to_array(v));
  r.seconds = since(t_all);
  return r;
}

}  // namespace

nlohmann::ordered_json per_node_json(const GraphRun& run) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const NodeRecord& n : run.nodes)
    nodes.push_back({{"name", n.name},
                     {"op", n.op},
                     {"engine", n.engine},
                     {"us", n.seconds * 1e6},
                     {"start_us", n.start * 1e6},
                     {"share", run.seconds > 0 ? n.seconds / run.seconds : 0.0},
                     {"macs", n.macs}});
  return nodes;
}

GraphRun run_reference_f64(const Graph& g, const std::vector<HostArray>& inputs) {
  compiler::graph::Interpreter<double> interp(g);
  return run_graph<double>(g, interp, inputs, nullptr);
}

LlvmGraphRunner::LlvmGraphRunner(const Graph& g, int threads)
    : g_(g), state_(std::make_unique<State>(threads)) {}
LlvmGraphRunner::~LlvmGraphRunner() = default;

GraphRun LlvmGraphRunner::run(const std::vector<HostArray>& inputs) {
  cancelled_ = false;
  // One interpreter for every run: the values' storage is reused from the run before.
  if (!state_->interp)
    state_->interp = std::make_unique<compiler::graph::Interpreter<float>>(g_, state_.get());
  return run_graph<float>(g_, *state_->interp, inputs, &state_->used, &cancelled_);
}
double LlvmGraphRunner::compile_seconds() const { return state_->compile_seconds; }
int LlvmGraphRunner::kernels_compiled() const { return static_cast<int>(state_->kernels.size()); }

}  // namespace weft::rt::graph
