// Fuzz target: the graph pipeline as a differential test. The bytes build a random valid
// float network (an NCHW input; convolutions of any kernel, stride and padding with or without
// bias, groups and batch norm, depthwise convolutions, ReLU and Clip, SiLU and squeeze-and-
// excite (Sigmoid, Mul, a global average pool), max and average pools, residual adds, channel
// concats, and optionally the classifier head: global average pool, flatten, Gemm) and pick a
// configuration.
// Then:
//   fp32: the LLVM CPU path (runtime/graph/cpu_graph.h) must agree with the float64 reference
//         interpreter to 1e-4 of the output's largest magnitude (the bound docs/onnx.md states);
//   int8: the graph goes through every pass of the pipeline (compile_graph), the executor runs
//         it on the functional and the cycle engines, and both outputs must equal the int8
//         reference interpreter's bit for bit.
// A UserError from the pipeline or the executor (a network it does not take, a layer with no
// tiling) is allowed and counted (WEFT_FUZZ_GRAPH_STATS=1 prints the counts at exit); an
// InternalError, a mismatch or a crash is a bug.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "fuzz/fuzz_common.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/executor.h"
#if defined(WEFT_FUZZ_FP32_LLVM)
#include "runtime/graph/cpu_graph.h"
#endif

using namespace weft;
namespace cg = compiler::graph;

namespace {

constexpr int64_t kMaxMacs = 1 << 19;  // keeps one input near a second under ASan

struct Stats {
  uint64_t graphs = 0, fp32_checked = 0, int8_rejected = 0, int8_checked = 0;
  ~Stats() {
    if (std::getenv("WEFT_FUZZ_GRAPH_STATS"))
      std::fprintf(stderr,
                   "fuzz_graph: %llu graphs, %llu fp32 checked, %llu refused by the int8 "
                   "pipeline (UserError), %llu int8 checked on functional and cycle\n",
                   (unsigned long long)graphs, (unsigned long long)fp32_checked,
                   (unsigned long long)int8_rejected, (unsigned long long)int8_checked);
  }
} stats;

// Weights from a seed the bytes give (xorshift32), so a few bytes make a whole network.
class Weights {
 public:
  explicit Weights(uint32_t seed) : s_(seed ? seed : 1) {}
  float next() {  // [-1, 1)
    s_ ^= s_ << 13;
    s_ ^= s_ >> 17;
    s_ ^= s_ << 5;
    return static_cast<float>(s_ >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  std::vector<float> values(int64_t n, float scale, float bias = 0) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = bias + scale * next();
    return v;
  }

 private:
  uint32_t s_;
};

class NetBuilder {
 public:
  NetBuilder(FuzzedDataProvider& f, cg::Graph& g, Weights& w) : f_(f), g_(g), w_(w) {}

  const std::vector<int64_t>& shape(cg::ValueId v) const { return g_.value(v).type.shape; }

  cg::ValueId constant(const std::vector<int64_t>& s, float scale, float bias = 0) {
    cg::TensorType t(cg::DType::F32, s);
    return g_.add_constant(name("c"), t, cg::ConstData::from_f32(w_.values(t.elements(), scale, bias)));
  }

  // A convolution the input's size allows (kernel up to 7, stride up to 3, padding below the
  // kernel), with or without bias and batch norm; nullopt-like kNone when none fits the budget.
  cg::ValueId conv(cg::ValueId x, int64_t oc, bool keep_size) {
    const auto s = shape(x);
    const int64_t h = s[2], w = s[3];
    int64_t k = keep_size ? 2 * f_.ConsumeIntegralInRange<int64_t>(0, 2) + 1
                          : f_.ConsumeIntegralInRange<int64_t>(1, 7);
    int64_t stride = keep_size ? 1 : f_.ConsumeIntegralInRange<int64_t>(1, 3);
    int64_t pad = keep_size ? k / 2 : f_.ConsumeIntegralInRange<int64_t>(0, k - 1);
    k = std::min(k, std::min(h, w) + 2 * pad);
    if (keep_size) pad = k / 2;
    const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
    // Groups: a common divisor of the channels in and out (ResNeXt's grouped convs).
    int64_t groups = f_.ConsumeIntegralInRange<int64_t>(1, 8);
    while (s[1] % groups || oc % groups) --groups;
    macs_ += s[0] * oc * oh * ow * (s[1] / groups) * k * k;
    const float a = std::sqrt(6.0f / static_cast<float>(s[1] / groups * k * k));
    std::vector<cg::ValueId> in = {x, constant({oc, s[1] / groups, k, k}, a)};
    if (f_.ConsumeBool()) in.push_back(constant({oc}, 0.1f));
    cg::ValueId y = g_.add_op(cg::OpKind::Conv, name("conv"), in,
                              {{"kernel_shape", std::vector<int64_t>{k, k}},
                               {"strides", std::vector<int64_t>{stride, stride}},
                               {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                               {"group", groups}});
    if (f_.ConsumeBool()) {
      y = g_.add_op(cg::OpKind::BatchNormalization, name("bn"),
                    {y, constant({oc}, 0.1f, 1.0f), constant({oc}, 0.1f),
                     constant({oc}, 0.1f), constant({oc}, 0.2f, 1.0f)},
                    {{"epsilon", 1e-5}});
    }
    return y;
  }

  // A depthwise convolution (group = channels; kernel up to 5, stride up to 2, each of the four
  // pads below the kernel), with or without bias.
  cg::ValueId depthwise(cg::ValueId x) {
    const auto s = shape(x);
    const int64_t c = s[1];
    const int64_t k = std::min<int64_t>(f_.ConsumeIntegralInRange<int64_t>(1, 5), std::min(s[2], s[3]));
    const int64_t stride = f_.ConsumeIntegralInRange<int64_t>(1, 2);
    std::vector<int64_t> pads(4);
    for (int64_t& p : pads) p = f_.ConsumeIntegralInRange<int64_t>(0, k - 1);
    const int64_t oh = (s[2] + pads[0] + pads[2] - k) / stride + 1,
                  ow = (s[3] + pads[1] + pads[3] - k) / stride + 1;
    macs_ += s[0] * c * oh * ow * k * k;
    std::vector<cg::ValueId> in = {x, constant({c, 1, k, k}, std::sqrt(6.0f / float(k * k)))};
    if (f_.ConsumeBool()) in.push_back(constant({c}, 0.1f));
    return g_.add_op(cg::OpKind::Conv, name("dwconv"), in,
                     {{"kernel_shape", std::vector<int64_t>{k, k}},
                      {"strides", std::vector<int64_t>{stride, stride}},
                      {"pads", pads},
                      {"group", c}});
  }

  cg::ValueId pool(cg::ValueId x, cg::OpKind kind) {
    const auto s = shape(x);
    const int64_t k = std::min<int64_t>(f_.ConsumeIntegralInRange<int64_t>(1, 3),
                                        std::min(s[2], s[3]));
    const int64_t stride = f_.ConsumeIntegralInRange<int64_t>(1, 2);
    const int64_t pad = std::min<int64_t>(f_.ConsumeIntegralInRange<int64_t>(0, 1), k - 1);
    return g_.add_op(kind, name("pool"), {x},
                     {{"kernel_shape", std::vector<int64_t>{k, k}},
                      {"strides", std::vector<int64_t>{stride, stride}},
                      {"pads", std::vector<int64_t>{pad, pad, pad, pad}}});
  }

  cg::ValueId relu(cg::ValueId x) { return g_.add_op(cg::OpKind::Relu, name("relu"), {x}); }

  std::string name(const char* base) { return std::string(base) + std::to_string(++count_); }
  int64_t macs() const { return macs_; }

 private:
  FuzzedDataProvider& f_;
  cg::Graph& g_;
  Weights& w_;
  int count_ = 0;
  int64_t macs_ = 0;
};

// The network the bytes describe; its input in `x`. UserError when a node cannot be added.
cg::Graph random_network(FuzzedDataProvider& f, std::vector<float>& x, int64_t& macs) {
  cg::Graph g("fuzz_graph");
  Weights w(f.ConsumeIntegral<uint32_t>());
  NetBuilder b(f, g, w);
  const int64_t n = f.ConsumeIntegralInRange<int64_t>(1, 2);
  const int64_t c = f.ConsumeIntegralInRange<int64_t>(1, 12);
  const int64_t h = f.ConsumeIntegralInRange<int64_t>(1, 14);
  const int64_t wd = f.ConsumeIntegralInRange<int64_t>(1, 14);
  cg::ValueId y = g.add_input("x", cg::TensorType(cg::DType::F32, {n, c, h, wd}));
  const int layers = f.ConsumeIntegralInRange(1, 6);
  for (int i = 0; i < layers && f.remaining_bytes() > 0; ++i) {
    const int64_t ch = b.shape(y)[1];
    switch (f.ConsumeIntegralInRange(0, 9)) {
      case 0:  // a convolution, then usually a ReLU
        y = b.conv(y, f.ConsumeIntegralInRange<int64_t>(1, 24), false);
        if (f.ConsumeProbability<float>() < 0.7f) y = b.relu(y);
        break;
      case 1:  // a residual block: conv (same size) + the input, then ReLU
        y = b.relu(g.add_op(cg::OpKind::Add, b.name("add"), {b.conv(y, ch, true), y}));
        break;
      case 2:  // a channel concat of the value and a same-size conv of it
        y = g.add_op(cg::OpKind::Concat, b.name("concat"),
                     {y, b.relu(b.conv(y, f.ConsumeIntegralInRange<int64_t>(1, 16), true))},
                     {{"axis", int64_t{1}}});
        break;
      case 3:
        y = b.pool(y, cg::OpKind::MaxPool);
        break;
      case 4:
        y = b.pool(y, cg::OpKind::AveragePool);
        break;
      case 5:
        y = b.relu(y);
        break;
      case 6: {  // Clip to [0, 6] (ReLU6)
        y = g.add_op(cg::OpKind::Clip, b.name("clip"),
                     {y, b.constant({}, 0.0f, 0.0f), b.constant({}, 0.0f, 6.0f)});
        break;
      }
      case 7:  // a depthwise convolution, then usually a ReLU6 (MobileNet's middle layer)
        y = b.depthwise(y);
        if (f.ConsumeProbability<float>() < 0.7f)
          y = g.add_op(cg::OpKind::Clip, b.name("clip"),
                       {y, b.constant({}, 0.0f, 0.0f), b.constant({}, 0.0f, 6.0f)});
        break;
      case 8: {  // SiLU, x * sigmoid(x), and sometimes a squeeze-and-excite scale (EfficientNet)
        y = g.add_op(cg::OpKind::Mul, b.name("silu"),
                     {y, g.add_op(cg::OpKind::Sigmoid, b.name("sigmoid"), {y})});
        if (f.ConsumeBool()) {
          cg::ValueId s = g.add_op(cg::OpKind::GlobalAveragePool, b.name("squeeze"), {y});
          s = b.relu(b.conv(s, f.ConsumeIntegralInRange<int64_t>(1, 8), true));
          s = g.add_op(cg::OpKind::Sigmoid, b.name("excite"), {b.conv(s, ch, true)});
          y = g.add_op(cg::OpKind::Mul, b.name("scale"), {y, s});
        }
        break;
      }
      default:  // two convolutions, the second strided: a downsampling stage
        y = b.relu(b.conv(y, f.ConsumeIntegralInRange<int64_t>(1, 24), true));
        y = b.conv(y, f.ConsumeIntegralInRange<int64_t>(1, 24), false);
        break;
    }
  }
  if (f.ConsumeBool()) {  // the classifier head
    y = g.add_op(cg::OpKind::GlobalAveragePool, b.name("gap"), {y});
    y = g.add_op(cg::OpKind::Flatten, b.name("flatten"), {y}, {{"axis", int64_t{1}}});
    const int64_t k = b.shape(y)[1], classes = f.ConsumeIntegralInRange<int64_t>(1, 16);
    y = g.add_op(cg::OpKind::Gemm, b.name("fc"),
                 {y, b.constant({classes, k}, std::sqrt(6.0f / float(k))), b.constant({classes}, 0.05f)},
                 {{"transB", int64_t{1}}});
  }
  g.set_outputs({y});
  x = w.values(n * c * h * wd, 1.0f);
  macs = b.macs();
  return g;
}

#if defined(WEFT_FUZZ_FP32_LLVM)
// fp32 on the LLVM path against float64: within 1e-4 of the output's largest magnitude.
void check_fp32(const cg::Graph& g, const std::vector<float>& x) {
  rt::graph::HostArray in;
  in.dtype = cg::DType::F32;
  in.shape = g.value(g.inputs()[0]).type.shape;
  in.data.assign(x.begin(), x.end());
  rt::graph::LlvmGraphRunner runner(g, 1);
  const rt::graph::HostArray y = runner.run({in}).outputs.at(0);
  const rt::graph::HostArray ref = rt::graph::run_reference_f64(g, {in}).outputs.at(0);
  fuzz::check(y.data.size() == ref.data.size(), "fp32: output sizes differ");
  double top = 0, err = 0;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    top = std::max(top, std::fabs(ref.data[i]));
    err = std::max(err, std::fabs(y.data[i] - ref.data[i]));
  }
  fuzz::check(std::isfinite(err) && err <= 1e-4 * std::max(top, 1e-3),
              "fp32: the LLVM path differs from the float64 interpreter by " +
                  std::to_string(err) + " (largest magnitude " + std::to_string(top) + ")");
  ++stats.fp32_checked;
}
#endif

// int8: every pass, then the executor on functional and cycle, bit-exact with the reference.
void check_int8(const cg::Graph& g, const std::vector<float>& x, const isa::Layout& l) {
  const isa::Platform& pf = isa::find_platform("sim");
  std::optional<cg::CompiledGraph> compiled;
  try {
    compiled = cg::compile_graph(g, l, pf, {});
  } catch (const UserError&) {
    ++stats.int8_rejected;
    return;
  }
  const cg::CompiledGraph& c = *compiled;
  const std::vector<std::vector<float>> want = cg::reference_int8(c.graph, {x});
  rt::graph::ExecutorOptions eo;
  eo.use_records = false;  // the analytic choice: the same schedules whatever records ship
  std::unique_ptr<rt::graph::GraphExecutor> exe;
  try {
    exe = std::make_unique<rt::graph::GraphExecutor>(c, l, pf, eo);
  } catch (const UserError&) {
    ++stats.int8_rejected;
    return;
  }
  for (const char* engine : {"functional", "cycle"}) {
    auto dev = rt::graph::open_graph_device(engine, *exe, l, pf);
    rt::graph::RunResult r;
    try {
      r = exe->run(*dev, {x});
    } catch (const UserError& e) {
      fuzz::check(false, std::string("int8: the executor fails on ") + engine + ": " + e.what());
    }
    fuzz::check(r.outputs == want, std::string("int8: the ") + engine +
                                       " engine differs from the int8 reference interpreter");
  }
  ++stats.int8_checked;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider f(data, size);
  const isa::Layout& l = fuzz::layout_of(f.ConsumeIntegral<uint8_t>());
  std::vector<float> x;
  int64_t macs = 0;
  cg::Graph g("none");
  try {
    g = random_network(f, x, macs);
  } catch (const UserError&) {
    return 0;  // a node the builder made that the graph refuses: not the pipeline's business
  }
  if (macs > kMaxMacs) return 0;
  ++stats.graphs;
#if defined(WEFT_FUZZ_FP32_LLVM)
  check_fp32(g, x);
#endif
  check_int8(g, x, l);
  return 0;
}
