// The graph executor's LLVM CPU kernels; see llvm_kernels.h. A node becomes a kernel of
// compiler/ops/cpu (elementwise.h, pool.h, qconv.h, packed.h: the tensor expressions, their
// schedules and the int8 rounding of compiler/ops/int8_ir.h) with its parameters read from the
// node; this file keeps the process-wide cache of the compiled kernels (keyed by operator,
// shape and parameters), the node's constant buffers, and the calls.
#include "runtime/graph/llvm_kernels.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/transformer_kernels.h"
#include "compiler/ops/cpu/data_movement.h"
#include "compiler/ops/cpu/elementwise.h"
#include "compiler/ops/cpu/normalization.h"
#include "compiler/ops/cpu/packed.h"
#include "compiler/ops/cpu/pool.h"
#include "compiler/ops/cpu/qconv.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"

namespace weft::rt::graph {

namespace ops = compiler::ops::cpu;
using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::Node;
using compiler::graph::OpKind;
using compiler::graph::TensorType;
using compiler::ops::BinaryFn;
using compiler::ops::LoweredOp;
using IDT = compiler::ir::DType;

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

// The kernel for `key`, built by `make` and JIT-compiled on first use.
std::shared_ptr<Compiled> compiled(const std::string& key, const std::function<LoweredOp()>& make) {
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

// The pooling window of a MaxPool / AveragePool / GlobalAveragePool node over its NCHW input.
ops::Window window_of(const Graph& g, const Node& n) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  ops::Window s{};
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

// A kernel's cache key and how to build it: shared by the executor's node kernels and the
// fp32 path's llvm_* calls, so one shape compiles once for both.
struct Spec {
  std::string key;
  std::function<LoweredOp()> make;
};

Spec softmax_spec(int64_t outer, int64_t n, int64_t inner) {
  return {"softmax f32 " + std::to_string(outer) + "x" + std::to_string(n) + "x" +
              std::to_string(inner),
          [=] { return ops::softmax_f32(outer, n, inner); }};
}

Spec transpose_spec(const std::vector<int64_t>& xs, const std::vector<int64_t>& perm) {
  return {"transpose f32 [" + ints_str(xs) + "] perm [" + ints_str(perm) + "]",
          [=] { return ops::transpose_f32(xs, perm); }};
}

// Elements begin, begin + step, ... (< end) of dimension `axis`; nothing for a step below 1.
std::optional<Spec> slice_spec(const std::vector<int64_t>& xs, size_t axis, int64_t begin,
                               int64_t end, int64_t step) {
  if (step < 1 || axis >= xs.size()) return std::nullopt;
  const auto s = compiler::graph::split_at(xs, static_cast<int64_t>(axis));
  const int64_t count = end > begin ? (end - begin + step - 1) / step : 0;
  return Spec{"slice f32 " + std::to_string(s.outer) + "x" + std::to_string(s.n) + "x" +
                  std::to_string(s.inner) + " [" + std::to_string(begin) + ":" +
                  std::to_string(end) + ":" + std::to_string(step) + "]",
              [=] { return ops::slice_f32(s.outer, s.n, s.inner, begin, count, step); }};
}

// The mean over the flagged dimensions as [outer, n, inner]; nothing unless they are one run
// of adjacent dimensions (the loop's general walk does the rest) and the tensor is not empty.
std::optional<Spec> reduce_mean_spec(const std::vector<int64_t>& xs,
                                     const std::vector<bool>& reduced) {
  size_t first = xs.size(), last = 0;
  for (size_t d = 0; d < xs.size(); ++d)
    if (reduced[d]) first = std::min(first, d), last = d;
  if (first == xs.size()) return std::nullopt;
  for (size_t d = first; d <= last; ++d)
    if (!reduced[d]) return std::nullopt;
  int64_t outer = 1, n = 1, inner = 1;
  for (size_t d = 0; d < xs.size(); ++d) (d < first ? outer : d <= last ? n : inner) *= xs[d];
  if (outer * n * inner <= 0) return std::nullopt;
  return Spec{"reduce_mean f32 " + std::to_string(outer) + "x" + std::to_string(n) + "x" +
                  std::to_string(inner),
              [=] { return ops::reduce_mean_f32(outer, n, inner); }};
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
  // A batched dense: the kernel computes one of `slices` slices a call; each passed input and
  // the output advance by their entry of `slice_bytes` (inputs in order, then the output; 0
  // for an input all slices share, the bias).
  int64_t slices = 1;
  std::vector<int64_t> slice_bytes;
  // Packed kernels (make_llvm_packed_kernel): what each call computes. kIm2Col: `rows` output
  // rows (of `out_rows`) of every one of `planes` block planes, the first row a run-time
  // argument; kPool: `planes` block planes (of `total`), the first one a run-time argument.
  enum Packed { kNone, kIm2Col, kPool } packed = kNone;
  int64_t rows = 0, out_rows = 0, row_bytes = 0, planes = 0, total = 0, plane_bytes = 0;
  int64_t first_row = 0;  // kIm2Col: the band's first row (y0)
  int64_t workspace = 0;  // kIm2Col: bytes of the quantized window rows (a kernel workspace)
};

namespace {

// QConv / QDense with plain int8 weights and shifts in 0..31 (qconv.h), else null.
std::shared_ptr<LlvmNodeKernel> qconv_kernel(const Graph& g, const Node& n) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const auto& wv = g.value(n.inputs[1]);
  const TensorType& yt = g.value(n.outputs[0]).type;
  if (wv.type.layout.kind != compiler::graph::Layout::Plain || xt.dtype != DType::I8 ||
      wv.type.dtype != DType::I8 || n.get_int("group", 1) != 1)  // grouped: the plain kernel
    return nullptr;
  const int64_t slices = n.facts.slices.value_or(1);  // a batched dense: one kernel per slice
  if (slices != 1 && (n.kind != OpKind::QDense || xt.shape[0] % slices != 0 ||
                      wv.type.shape[0] % slices != 0))
    return nullptr;
  ops::QConv q;
  q.conv = n.kind == OpKind::QConv;
  q.bias = n.inputs.size() > 2 && n.inputs[2] != compiler::graph::kNone;
  q.residual = q.conv && n.inputs.size() > 3 && n.inputs[3] != compiler::graph::kNone;
  q.relu = n.facts.relu.value_or(false);
  q.x = xt.shape;
  q.w = wv.type.shape;
  q.y = yt.shape;
  if (slices != 1) {
    q.x[0] /= slices;
    q.w[0] /= slices;
    q.y = {q.x[0], q.w[0]};
  }
  const int64_t O = q.w[0];
  std::vector<int64_t> sh = n.facts.shifts.value_or(std::vector<int64_t>{});
  if (sh.empty()) sh.assign(static_cast<size_t>(O), n.facts.shift.value_or(0));
  for (int64_t v : sh)
    if (v < 0 || v > 31) return nullptr;
  auto node = std::make_shared<LlvmNodeKernel>();
  node->inputs = {0, 1};
  if (q.bias) node->inputs.push_back(2);
  if (q.residual) node->inputs.push_back(3);
  node->consts.emplace_back(sh.begin(), sh.end());
  if (slices != 1) {
    const int64_t M = q.x[0], K = q.x[1];
    node->slices = slices;
    node->slice_bytes = {M * K, O * K};
    if (q.bias) node->slice_bytes.push_back(0);
    node->slice_bytes.push_back(M * O);
  }

  std::string key = std::string(q.conv ? "qconv" : "qdense") + " i8 " + ints_str(q.x) + " w" +
                    ints_str(q.w) + (q.bias ? " bias" : "") +
                    (q.residual ? " residual" : "") + (q.relu ? " relu" : "");
  if (q.conv) {
    q.strides = n.get_ints("strides", {1, 1});
    q.pads = n.get_ints("pads", {0, 0, 0, 0});
    q.dilations = n.get_ints("dilations", {1, 1});
    key += " s" + ints_str(q.strides) + " p" + ints_str(q.pads) + " d" + ints_str(q.dilations) +
           " -> " + yt.str();
  }
  node->key = key;
  node->k = compiled(key, [&] { return ops::qconv(q); });
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
  auto make = [&](const std::string& key, const std::function<LoweredOp()>& build) {
    node->key = key;
    node->k = compiled(key, build);
    return node;
  };
  const std::string shape = " " + std::to_string(count);
  if (yt.dtype == DType::F32 && xt.dtype == DType::F32) {  // an fp32 element-wise node
    if (auto u = compiler::graph::unary_of(n))
      return make(u->str() + " f32" + shape, [&] { return ops::unary_f32(count, *u); });
    if (auto f = compiler::graph::binary_of(n.kind)) {
      const auto& z = g.value(n.inputs[1]);
      const TensorType& zt = z.type;
      if (zt.layout.kind != compiler::graph::Layout::Plain) return nullptr;
      if (z.is_constant() && zt.dtype == DType::F32 &&
          compiler::ops::pow_is_square(*f, z.data->f32(), zt.elements()) &&
          yt.shape == xt.shape) {
        node->inputs = {0, 0};
        return make("mul f32 [" + ints_str(xt.shape) + "] [" + ints_str(xt.shape) + "] -> [" +
                        ints_str(yt.shape) + "]",
                    [&] { return ops::binary_f32(BinaryFn::kMul, xt.shape, xt.shape, yt.shape); });
      }
      node->inputs = {0, 1};
      return make(std::string(compiler::ops::binary_name(*f)) + " f32 [" + ints_str(xt.shape) +
                      "] [" + ints_str(zt.shape) + "] -> [" + ints_str(yt.shape) + "]",
                  [&] { return ops::binary_f32(*f, xt.shape, zt.shape, yt.shape); });
    }
    // Transformer nodes kept in fp32 (the interpreter's loops otherwise, run_float_node).
    auto from = [&](const std::optional<Spec>& s) { return s ? make(s->key, s->make) : nullptr; };
    if (count == 0 || xt.elements() == 0) return nullptr;  // the loops' own empty handling
    const int64_t rank = xt.rank();
    switch (n.kind) {
      case OpKind::Softmax: {
        const int64_t axis = n.get_int("axis", -1);  // import and inference normalize it
        if (axis < 0 || axis >= rank) return nullptr;
        const auto s = compiler::graph::split_at(xt.shape, axis);
        return from(softmax_spec(s.outer, s.n, s.inner));
      }
      case OpKind::Transpose:
        if (rank == 0) return nullptr;
        return from(transpose_spec(xt.shape, n.get_ints("perm")));
      case OpKind::Slice:
        return from(slice_spec(xt.shape, static_cast<size_t>(n.get_int("axis", 0)),
                               n.get_int("start", 0), n.get_int("end", 0), n.get_int("step", 1)));
      case OpKind::ReduceMean: {
        std::vector<bool> reduced(static_cast<size_t>(rank), false);
        for (int64_t a : n.get_ints("axes")) reduced.at(static_cast<size_t>(a)) = true;
        return from(reduce_mean_spec(xt.shape, reduced));
      }
      default:
        return nullptr;
    }
  }
  switch (n.kind) {
    case OpKind::Quantize: {
      if (xt.dtype != DType::F32 || yt.dtype != DType::I8) return nullptr;
      const int e = yt.quant.exponent();
      return make("quantize f32->i8" + shape + " e" + std::to_string(e),
                  [&] { return ops::quantize_f32(count, e); });
    }
    case OpKind::Dequantize: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::F32) return nullptr;
      const int e = xt.quant.exponent();
      return make("dequantize i8->f32" + shape + " e" + std::to_string(e),
                  [&] { return ops::dequantize_i8(count, e); });
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
                  [&] { return ops::clip_i8(count, lo, hi); });
    }
    case OpKind::Requantize: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::I8) return nullptr;
      const int sa = yt.quant.exponent() - xt.quant.exponent();
      return make("requantize i8" + shape + " s" + std::to_string(sa),
                  [&] { return ops::requantize_i8(count, sa); });
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
      return make("add i8" + shape + " s" + std::to_string(sa) + "," + std::to_string(sb),
                  [&] { return ops::add_i8(count, sa, sb); });
    }
    case OpKind::MaxPool: {
      if (xt.dtype != DType::I8 || xt.rank() != 4) return nullptr;
      if (n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return nullptr;
      const ops::Window s = window_of(g, n);
      return make("maxpool i8 " + s.str(), [&] { return ops::max_pool(s, IDT::kInt8); });
    }
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool: {
      if (xt.dtype != DType::I8 || yt.dtype != DType::I8 || xt.rank() != 4) return nullptr;
      const ops::Window s = window_of(g, n);
      const bool incl = n.kind == OpKind::AveragePool && n.get_int("count_include_pad", 0) != 0;
      const int d = xt.quant.exponent() - yt.quant.exponent();
      return make("avgpool i8 " + s.str() + (incl ? " incl" : "") + " d" + std::to_string(d),
                  [&] { return ops::avg_pool_i8(s, incl, d); });
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
      throw InternalError("llvm kernel '" + k.key + "': input " + std::to_string(i) +
                          " is missing");
    bufs.push_back(const_cast<uint8_t*>(in[i]));
  }
  for (auto& c : k.consts) bufs.push_back(c.data());
  bufs.push_back(out);
  std::lock_guard<std::mutex> lock(k.k->run_mu);
  if (k.slices == 1) {
    k.k->kernel->run(bufs);
    return;
  }
  // Passed inputs, then the constants (shared), then the output.
  const size_t ins = k.inputs.size();
  std::vector<void*> at = bufs;
  for (int64_t s = 0; s < k.slices; ++s) {
    for (size_t i = 0; i < ins; ++i) at[i] = static_cast<int8_t*>(bufs[i]) + s * k.slice_bytes[i];
    at.back() = static_cast<int8_t*>(bufs.back()) + s * k.slice_bytes[ins];
    k.k->kernel->run(at);
  }
}

// ---- packed outputs (kCpuPacked) ----

std::shared_ptr<LlvmNodeKernel> make_llvm_packed_kernel(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty()) return nullptr;
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  if (yt.layout.kind != compiler::graph::Layout::Blocked || yt.dtype != DType::I8 ||
      yt.rank() != 4 || xt.rank() != 4 || xt.layout.kind != compiler::graph::Layout::Plain)
    return nullptr;
  // The packed geometry of the output type, as packed_io.cc's Blocks.
  const ops::PackedGeom pg{yt.shape[0], yt.shape[1], yt.shape[2],
                           yt.shape[3], yt.layout.n, yt.layout.c};
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
    const int64_t nc = std::max<int64_t>(0, std::min<int64_t>(int64_t(consts.size()), pg.c - CKK));
    node->packed = LlvmNodeKernel::kIm2Col;
    node->planes = pg.nb() * pg.cb();
    node->out_rows = pg.h;
    node->first_row = y0;
    node->row_bytes = pg.w * pg.bn * pg.bc;
    const int64_t row = node->planes * node->row_bytes;  // one output row of every plane
    node->rows = std::max<int64_t>(1, std::min(pg.h, kPackedChunkBytes / row));
    node->workspace = pg.n * xt.shape[1] * ((node->rows - 1) * s + K) * ((pg.w - 1) * s + K);
    std::vector<int32_t> cv(consts.begin(), consts.begin() + nc);
    if (cv.empty()) cv.push_back(0);
    node->consts.push_back(std::move(cv));
    node->key = "im2col->packed " + std::string(xt.dtype == DType::F32 ? "f32" : "i8") + " " +
                xt.str() + " k" + std::to_string(K) + " s" + std::to_string(s) + " p" +
                ints_str(pd) + " consts " + std::to_string(nc) + " e" +
                std::to_string(yt.quant.exponent()) + " -> " + ints_str(yt.shape) + lay + " rows " +
                std::to_string(node->rows);
    ops::Im2ColPacked p;
    p.x = xt.shape;
    p.f32 = xt.dtype == DType::F32;
    p.e = yt.quant.exponent();
    p.y = pg;
    p.rows = node->rows, p.k = K, p.stride = s, p.pad_top = pd.at(0), p.pad_left = pd.at(1);
    p.consts = nc;
    node->k = compiled(node->key, [&] { return ops::im2col_packed(p); });
    return node;
  }
  if (n.kind == OpKind::MaxPool) {
    if (xt.dtype != DType::I8) return nullptr;
    if (n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return nullptr;
    const ops::Window s = window_of(g, n);
    node->packed = LlvmNodeKernel::kPool;
    node->total = pg.nb() * pg.cb();
    node->plane_bytes = pg.h * pg.w * pg.bn * pg.bc;
    node->planes =
        std::min(node->total, std::max<int64_t>(1, kPackedChunkBytes / node->plane_bytes));
    node->key = "maxpool->packed i8 " + ints_str(xt.shape) + " " + s.str() + " -> " +
                ints_str(yt.shape) + lay + " planes " + std::to_string(node->planes);
    node->k =
        compiled(node->key, [&] { return ops::max_pool_packed(xt.shape, pg, s, node->planes); });
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

namespace {

// Runs the kernel of `key` (built by `make` on first use) on `bufs`.
void run_cached(const std::string& key, const std::function<LoweredOp()>& make,
                const std::vector<void*>& bufs) {
  auto k = compiled(key, make);
  std::lock_guard<std::mutex> lock(k->run_mu);
  k->kernel->run(bufs);
}

}  // namespace

bool llvm_clip_f32(const float* x, float* y, int64_t count, float lo, float hi) {
  if (count <= 0) return true;
  const std::string key = "clip f32 " + std::to_string(count) + " [" + std::to_string(lo) + "," +
                          std::to_string(hi) + "]";
  run_cached(key, [&] { return ops::clip_f32(count, lo, hi); }, {const_cast<float*>(x), y});
  return true;
}

bool llvm_pool_f32(bool max, const float* x, float* y, int64_t planes, int64_t h, int64_t w,
                   int64_t oh, int64_t ow, const std::vector<int64_t>& kernel,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                   bool count_include_pad) {
  const ops::Window s{planes,
                      h,
                      w,
                      oh,
                      ow,
                      kernel.at(0),
                      kernel.at(1),
                      strides.at(0),
                      strides.at(1),
                      pads.at(0),
                      pads.at(1),
                      pads.at(2),
                      pads.at(3)};
  const std::string key = std::string(max ? "maxpool" : "avgpool") + " f32 " + s.str() +
                          (count_include_pad ? " incl" : "");
  auto make = [&] { return max ? ops::max_pool(s, IDT::kFloat32) : ops::avg_pool_f32(s); };
  if (max) {
    run_cached(key, make, {const_cast<float*>(x), y});
    return true;
  }
  // The host kernel's count: taps inside the input, or inside the padded input.
  std::vector<float> recip(static_cast<size_t>(oh * ow));
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
  run_cached(key, make, {const_cast<float*>(x), recip.data(), y});
  return true;
}

bool llvm_global_avg_pool_f32(const float* x, float* y, int64_t planes, int64_t hw) {
  if (planes <= 0 || hw <= 0) return true;
  run_cached("gap f32 " + std::to_string(planes) + "x" + std::to_string(hw),
             [&] { return ops::global_avg_pool_f32(planes, hw); }, {const_cast<float*>(x), y});
  return true;
}

bool llvm_scale_shift_f32(const float* x, const float* a, const float* b, float* y, int64_t n,
                          int64_t c, int64_t plane) {
  if (n * c * plane <= 0) return true;
  const std::string key = "scale_shift f32 " + std::to_string(n) + "x" + std::to_string(c) + "x" +
                          std::to_string(plane);
  run_cached(key, [&] { return ops::scale_shift_f32(n, c, plane); },
             {const_cast<float*>(x), const_cast<float*>(a), const_cast<float*>(b), y});
  return true;
}

bool llvm_unary_f32(const compiler::ops::Unary& u, const float* x, float* y, int64_t count) {
  if (count <= 0) return true;
  run_cached(u.str() + " f32 " + std::to_string(count), [&] { return ops::unary_f32(count, u); },
             {const_cast<float*>(x), y});
  return true;
}

bool llvm_binary_f32(compiler::ops::BinaryFn f, const float* a, const std::vector<int64_t>& as,
                     const float* b, const std::vector<int64_t>& bs, float* y,
                     const std::vector<int64_t>& ys) {
  int64_t count = 1, b_count = 1;
  for (int64_t d : ys) count *= d;
  for (int64_t d : bs) b_count *= d;
  if (count <= 0) return true;
  if (compiler::ops::pow_is_square(f, b, b_count) && as == ys)
    return llvm_binary_f32(BinaryFn::kMul, a, as, a, as, y, ys);
  const std::string key = std::string(compiler::ops::binary_name(f)) + " f32 [" + ints_str(as) +
                          "] [" + ints_str(bs) + "] -> [" + ints_str(ys) + "]";
  run_cached(key, [&] { return ops::binary_f32(f, as, bs, ys); },
             {const_cast<float*>(a), const_cast<float*>(b), y});
  return true;
}

bool llvm_softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner) {
  if (outer * n * inner <= 0) return true;
  const Spec s = softmax_spec(outer, n, inner);
  run_cached(s.key, s.make, {const_cast<float*>(x), y});
  return true;
}

bool llvm_layer_norm_f32(const float* x, const float* scale, const float* bias, float* y,
                         int64_t rows, int64_t len, double eps, int64_t scale_n, int64_t bias_n) {
  if (rows * len <= 0) return true;
  const std::string key = "layer_norm f32 " + std::to_string(rows) + "x" + std::to_string(len) +
                          " eps" + std::to_string(eps) + " s" + std::to_string(scale_n) + " b" +
                          std::to_string(bias_n);
  std::vector<void*> args = {const_cast<float*>(x), const_cast<float*>(scale)};
  if (bias_n) args.push_back(const_cast<float*>(bias));
  args.push_back(y);
  run_cached(key, [&] { return ops::layer_norm_f32(rows, len, eps, scale_n, bias_n); }, args);
  return true;
}

bool llvm_transpose_f32(const float* x, const std::vector<int64_t>& xs,
                        const std::vector<int64_t>& perm, float* y) {
  if (xs.empty()) return false;  // a scalar: the loop's copy
  int64_t count = 1;
  for (int64_t d : xs) count *= d;
  if (count <= 0) return true;
  const Spec s = transpose_spec(xs, perm);
  run_cached(s.key, s.make, {const_cast<float*>(x), y});
  return true;
}

bool llvm_slice_f32(const float* x, const std::vector<int64_t>& xs, size_t axis, int64_t begin,
                    int64_t end, int64_t step, float* y) {
  const auto s = slice_spec(xs, axis, begin, end, step);
  if (!s) return false;
  const auto sp = compiler::graph::split_at(xs, static_cast<int64_t>(axis));
  if (sp.outer * sp.inner <= 0 || end <= begin) return true;
  run_cached(s->key, s->make, {const_cast<float*>(x), y});
  return true;
}

bool llvm_reduce_mean_f32(const float* x, const std::vector<int64_t>& xs,
                          const std::vector<bool>& reduced, float* y) {
  const auto s = reduce_mean_spec(xs, reduced);
  if (!s) return false;
  run_cached(s->key, s->make, {const_cast<float*>(x), y});
  return true;
}

bool llvm_resize_f32(const float* x, const std::vector<int64_t>& xs,
                     const std::vector<compiler::graph::ResizeAxis>& axes, float* y) {
  int64_t count = 1;
  for (int64_t d : xs) count *= d;
  if (count <= 0) return false;
  std::vector<int64_t> shape = xs;
  std::vector<float> cur, next;
  const float* src = x;  // the input until the first resized axis has been written to `cur`
  for (size_t a = axes.size(); a-- > 0;) {
    const compiler::graph::ResizeAxis& ax = axes[a];
    if (ax.identity) continue;
    const auto s = compiler::graph::split_at(shape, static_cast<int64_t>(a));
    const int64_t lo = static_cast<int64_t>(ax.w.size());
    std::vector<int32_t> lo_idx(ax.lo.begin(), ax.lo.end()), hi_idx(ax.hi.begin(), ax.hi.end());
    std::vector<float> w(ax.w.begin(), ax.w.end());  // as the loop: the weight in float
    next.assign(static_cast<size_t>(s.outer * lo * s.inner), 0.0f);
    const std::string key = "resize_axis f32 " + std::to_string(s.outer) + "x" +
                            std::to_string(s.n) + "x" + std::to_string(s.inner) + " -> " +
                            std::to_string(lo);
    run_cached(key, [&] { return ops::resize_axis_f32(s.outer, s.n, lo, s.inner); },
               {const_cast<float*>(src), lo_idx.data(), hi_idx.data(), w.data(), next.data()});
    cur.swap(next);
    src = cur.data();
    shape[a] = lo;
  }
  if (src == x) std::copy(x, x + count, y);  // no axis resized
  else std::copy(cur.begin(), cur.end(), y);
  return true;
}

}  // namespace weft::rt::graph
