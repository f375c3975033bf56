// An imported CNN's fp32 inference on Weft's LLVM path (`weft run MODEL.onnx --target llvm`'s
// runner) against the same graph run by oneDNN, interleaved in one process
// (scripts/bench/onnx_onednn.sh; issue #29's "within 1.2x of oneDNN-backed inference").
//
// The oneDNN side is what a oneDNN-backed framework builds for the graph: every convolution in
// the layouts oneDNN prefers (format `any`; grouped and depthwise ones as oneDNN's grouped
// convolution), its weights reordered once, a Relu or constant-bound Clip (ReLU6) that is a
// convolution's only reader fused as a post-op, and a residual Add fused as a `sum` post-op
// (the convolution accumulates onto the residual, in place when nothing reads the residual
// later), then the Relu or Clip; pooling, the global average, Flatten and the linear layer as oneDNN
// primitives. Both read the same input; the outputs are compared.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx/onnx_import.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_graph.h"
#include "runtime/graph/onnx_run.h"
#include "scripts/bench/bench_clock.h"

#ifdef WEFT_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace {

using weft::UserError;
using weft::compiler::graph::Graph;
using weft::compiler::graph::Node;
using weft::compiler::graph::NodeId;
using weft::compiler::graph::OpKind;
using weft::compiler::graph::ValueId;

#ifdef WEFT_HAVE_DNNL
using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// The graph as oneDNN primitives, built once; run() executes them in order.
// The operator kind a time is added under: grouped convolutions (MobileNet's depthwise
// layers) apart from the others.
std::string op_label(const Node& n) {
  const std::string op = weft::compiler::graph::op_name(n.kind);
  return n.kind == OpKind::Conv && n.get_int("group", 1) > 1 ? op + " (grouped)" : op;
}

class OneDnnGraph {
 public:
  OneDnnGraph(const Graph& g, const std::vector<float>& input) : g_(g), eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    const auto order = g.topo_order();
    for (size_t k = 0; k < order.size(); ++k) step_of_[order[k]] = k;
    for (NodeId id : order)
      for (ValueId v : g.node(id).inputs)
        if (v != weft::compiler::graph::kNone) readers_[v].push_back(id);
    const ValueId in = g.inputs().at(0);
    input_ = input;
    mem_[in] = memory({dims(in), dt::f32, tag::nchw}, eng_, input_.data());
    for (NodeId id : order) {
      if (skipped_.count(id)) continue;
      build(g.node(id));
    }
    const ValueId out = g.outputs().at(0);
    memory y = mem_.at(out);
    output_.resize(y.get_desc().get_size() / sizeof(float));
    memory plain({dims(out), dt::f32, dims(out).size() == 2 ? tag::nc : tag::nchw}, eng_,
                       output_.data());
    steps_.push_back({"Output", [this, y, plain]() mutable {
                        dnnl::reorder(y, plain).execute(strm_, y, plain);
                      }});
  }

  // One inference; seconds spent in each operator kind are added to `by_op`, and those of each
  // convolution's primitive to `by_conv` under its node's name.
  const std::vector<float>& run(std::map<std::string, double>* by_op = nullptr,
                                std::map<std::string, double>* by_conv = nullptr) {
    for (auto& s : steps_) {
      weft::bench::Stopwatch t;
      s.run();
      strm_.wait();
      if (by_op) (*by_op)[s.op] += t.cpu();
      if (by_conv && !s.conv.empty()) (*by_conv)[s.conv] += t.cpu();
    }
    return output_;
  }

 private:
  struct Step {
    std::string op;
    std::function<void()> run;
    std::string conv = {};  // the Conv node a convolution primitive computes
  };

  memory::dims dims(ValueId v) const {
    const auto& s = g_.value(v).type.shape;
    return memory::dims(s.begin(), s.end());
  }
  const float* constant(ValueId v) const {
    if (!g_.value(v).is_constant()) throw UserError("a weight that is not a constant");
    return g_.value(v).data->f32();
  }
  // The only reader of `v`, when it has one and it is of kind `k`.
  const Node* only_reader(ValueId v, OpKind k) const {
    auto it = readers_.find(v);
    if (it == readers_.end() || it->second.size() != 1) return nullptr;
    for (ValueId o : g_.outputs())
      if (o == v) return nullptr;
    const Node& r = g_.node(it->second[0]);
    return r.kind == k ? &r : nullptr;
  }
  // `m` in layout `want`: itself, or a reorder step into a fresh memory.
  memory as(const memory& m, const memory::desc& want, const std::string& op) {
    if (m.get_desc() == want) return m;
    memory from = m, r(want, eng_);
    steps_.push_back({op + " reorder", [this, from, r]() mutable {
                        dnnl::reorder(from, r).execute(strm_, from, r);
                      }});
    return r;
  }
  // A memory over bytes the graph owns (a constant's weights), read by a reorder.
  memory over(const memory::desc& d, const float* data) {
    return memory(d, eng_, const_cast<float*>(data));
  }

  void build(const Node& n) {
    const std::string where = "node '" + n.name + "' (" + weft::compiler::graph::op_name(n.kind) + ")";
    switch (n.kind) {
      case OpKind::Conv: conv(n, where); break;
      case OpKind::Relu:
      case OpKind::Clip: eltwise(n, where); break;
      case OpKind::Add: add(n, where); break;
      case OpKind::MaxPool:
      case OpKind::GlobalAveragePool: pool(n); break;
      case OpKind::Flatten: flatten(n); break;
      case OpKind::Gemm: gemm(n, where); break;
      default: throw UserError(where + " has no oneDNN mapping in this benchmark (CNNs of Conv, "
                               "Relu, Clip, Add, MaxPool, GlobalAveragePool, Flatten and Gemm)");
    }
  }

  // A Relu (lo 0, hi +inf) or a Clip of constant bounds as oneDNN's clip: false for a Clip
  // whose bounds are computed.
  bool clip_bounds(const Node& n, float* lo, float* hi) const {
    double l = 0, h = std::numeric_limits<double>::infinity();
    if (n.kind == OpKind::Clip && !weft::compiler::graph::constant_clip_bounds(g_, n, &l, &h))
      return false;
    *lo = static_cast<float>(l), *hi = static_cast<float>(h);
    return true;
  }
  // The Relu or constant-bound Clip that is `v`'s only reader, its bounds at lo, hi.
  const Node* clip_reader(ValueId v, float* lo, float* hi) const {
    const Node* r = only_reader(v, OpKind::Relu);
    if (!r) r = only_reader(v, OpKind::Clip);
    return r && clip_bounds(*r, lo, hi) ? r : nullptr;
  }
  void append_clip(dnnl::post_ops& po, float lo, float hi) {
    if (lo == 0.0f && std::isinf(hi))
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    else
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, lo, hi);
  }

  void conv(const Node& n, const std::string& where) {
    const ValueId x = n.inputs[0], w = n.inputs[1], y = n.outputs[0];
    const auto st = n.get_ints("strides", {1, 1}), p = n.get_ints("pads", {0, 0, 0, 0});
    const bool has_bias = n.inputs.size() > 2 && n.inputs[2] != weft::compiler::graph::kNone;
    // Grouped (depthwise: G = C = O) as oneDNN's grouped weights [G, O/G, C/G, KH, KW]: the
    // same bytes as ONNX's [O, C/G, KH, KW].
    const int64_t group = n.get_int("group", 1);
    memory::dims wd = dims(w);
    if (group < 1 || wd[0] % group) throw UserError(where + ": group does not divide the output channels");
    if (group > 1) wd = {group, wd[0] / group, wd[1], wd[2], wd[3]};
    const memory::desc src_any(dims(x), dt::f32, tag::any), w_any(wd, dt::f32, tag::any),
        dst_any(dims(y), dt::f32, tag::any);
    const memory::desc bias_md = has_bias ? memory::desc({dims(w)[0]}, dt::f32, tag::x) : memory::desc();
    // Fusions: a Relu or Clip as the only reader; Add(y, r) [-> Relu/Clip] as a sum onto r.
    dnnl::post_ops po;
    float lo = 0.0f, hi = 0.0f;
    std::vector<ValueId> aliases;
    ValueId residual = weft::compiler::graph::kNone;
    if (const Node* a = only_reader(y, OpKind::Add)) {
      const ValueId r = a->inputs[0] == y ? a->inputs[1] : a->inputs[0];
      if (mem_.count(r) && g_.value(r).type.shape == g_.value(y).type.shape) {
        residual = r;
        po.append_sum(1.0f);
        skipped_.insert(a->id);
        aliases.push_back(a->outputs[0]);
        if (const Node* rl = clip_reader(a->outputs[0], &lo, &hi)) {
          append_clip(po, lo, hi);
          skipped_.insert(rl->id);
          aliases.push_back(rl->outputs[0]);
        }
      }
    } else if (const Node* rl = clip_reader(y, &lo, &hi)) {
      append_clip(po, lo, hi);
      skipped_.insert(rl->id);
      aliases.push_back(rl->outputs[0]);
    }
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
        bias_md, dst_any, {st[0], st[1]}, {p[0], p[1]}, {p[2], p[3]});
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng_);
    memory src = as(mem_.at(x), pd.src_desc(), "Conv");
    memory wm(pd.weights_desc(), eng_);
    memory wplain = over({wd, dt::f32, group > 1 ? tag::goihw : tag::oihw}, constant(w));
    dnnl::reorder(wplain, wm).execute(strm_, wplain, wm);
    memory bm;
    if (has_bias) {
      bm = memory(bias_md, eng_);
      std::memcpy(bm.get_data_handle(), constant(n.inputs[2]), bias_md.get_size());
    }
    strm_.wait();
    memory dst;
    if (residual != weft::compiler::graph::kNone) {
      // In place on the residual when nothing after this convolution reads it (nor any value
      // held in the same memory) and it is not the graph's input.
      const void* held = mem_.at(residual).get_data_handle();
      bool dead = mem_.at(residual).get_desc() == pd.dst_desc() && residual != g_.inputs().at(0);
      for (const auto& [v, m] : mem_) {
        if (m.get_data_handle() != held) continue;
        for (ValueId o : g_.outputs())
          if (o == v) dead = false;
        auto rd = readers_.find(v);
        if (rd == readers_.end()) continue;
        for (NodeId r : rd->second)
          if (step_of_.at(r) > step_of_.at(n.id) && !skipped_.count(r)) dead = false;
      }
      if (dead) {
        dst = mem_.at(residual);
      } else {
        dst = memory(pd.dst_desc(), eng_);
        memory from = mem_.at(residual);
        steps_.push_back({"Add copy", [this, from, dst]() mutable {
                            dnnl::reorder(from, dst).execute(strm_, from, dst);
                          }});
      }
    } else {
      dst = memory(pd.dst_desc(), eng_);
    }
    dnnl::convolution_forward prim(pd);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dst}};
    if (has_bias) args[DNNL_ARG_BIAS] = bm;
    steps_.push_back({op_label(n), [this, prim, args]() { prim.execute(strm_, args); }, n.name});
    mem_[y] = dst;
    for (ValueId a : aliases) mem_[a] = dst;
  }

  void eltwise(const Node& n, const std::string& where) {
    const memory x = mem_.at(n.inputs[0]);
    float lo = 0.0f, hi = 0.0f;
    if (!clip_bounds(n, &lo, &hi)) throw UserError(where + ": a Clip of computed bounds is not mapped");
    const bool relu = lo == 0.0f && std::isinf(hi);
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                  relu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_clip,
                                  x.get_desc(), relu ? 0.0f : lo, relu ? 0.0f : hi);
    dnnl::eltwise_forward::primitive_desc pd(d, eng_);
    memory y(pd.dst_desc(), eng_);
    dnnl::eltwise_forward prim(pd);
    steps_.push_back({weft::compiler::graph::op_name(n.kind), [this, prim, x, y]() {
                        prim.execute(strm_, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
                      }});
    mem_[n.outputs[0]] = y;
  }

  void add(const Node& n, const std::string& where) {
    if (g_.value(n.inputs[0]).type.shape != g_.value(n.inputs[1]).type.shape)
      throw UserError(where + ": a broadcasting Add is not mapped");
    const memory a = mem_.at(n.inputs[0]);
    const memory b = as(mem_.at(n.inputs[1]), a.get_desc(), "Add");
    dnnl::binary::desc d(dnnl::algorithm::binary_add, a.get_desc(), a.get_desc(), a.get_desc());
    dnnl::binary::primitive_desc pd(d, eng_);
    memory y(pd.dst_desc(), eng_);
    dnnl::binary prim(pd);
    steps_.push_back({"Add", [this, prim, a, b, y]() {
                        prim.execute(strm_, {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, y}});
                      }});
    mem_[n.outputs[0]] = y;
  }

  void pool(const Node& n) {
    const memory x = mem_.at(n.inputs[0]);
    const auto xs = dims(n.inputs[0]);
    const bool global = n.kind == OpKind::GlobalAveragePool;
    const auto k = global ? std::vector<int64_t>{xs[2], xs[3]} : n.get_ints("kernel_shape");
    const auto st = global ? std::vector<int64_t>{1, 1} : n.get_ints("strides", {1, 1});
    const auto p = global ? std::vector<int64_t>{0, 0, 0, 0} : n.get_ints("pads", {0, 0, 0, 0});
    dnnl::pooling_forward::desc d(
        dnnl::prop_kind::forward_inference,
        global ? dnnl::algorithm::pooling_avg_exclude_padding : dnnl::algorithm::pooling_max,
        x.get_desc(), memory::desc(dims(n.outputs[0]), dt::f32, tag::any), {st[0], st[1]},
        {k[0], k[1]}, {p[0], p[1]}, {p[2], p[3]});
    dnnl::pooling_forward::primitive_desc pd(d, eng_);
    memory y(pd.dst_desc(), eng_);
    dnnl::pooling_forward prim(pd);
    steps_.push_back({global ? "GlobalAveragePool" : "MaxPool", [this, prim, x, y]() {
                        prim.execute(strm_, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
                      }});
    mem_[n.outputs[0]] = y;
  }

  // To the plain layout, then the same bytes as [N, C*H*W].
  void flatten(const Node& n) {
    const memory x = mem_.at(n.inputs[0]);
    const auto xs = dims(n.inputs[0]);
    memory plain = as(x, memory::desc(xs, dt::f32, xs.size() == 4 ? tag::nchw : tag::nc), "Flatten");
    // A view: `plain` stays alive in mem_ or in the reorder step that writes it.
    mem_[n.outputs[0]] = memory({dims(n.outputs[0]), dt::f32, tag::nc}, eng_, plain.get_data_handle());
  }

  void gemm(const Node& n, const std::string& where) {
    if (n.get_int("transA", 0) != 0 || n.get_int("transB", 0) != 1 ||
        n.get_float("alpha", 1.0) != 1.0 || n.get_float("beta", 1.0) != 1.0)
      throw UserError(where + ": only Gemm(A, W^T) + bias (a linear layer) is mapped");
    const ValueId w = n.inputs[1], y = n.outputs[0];
    const memory x = mem_.at(n.inputs[0]);
    const memory::desc bias_md({dims(w)[0]}, dt::f32, tag::x);
    dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_inference, x.get_desc(),
                                        memory::desc(dims(w), dt::f32, tag::any), bias_md,
                                        memory::desc(dims(y), dt::f32, tag::nc));
    dnnl::inner_product_forward::primitive_desc pd(d, eng_);
    memory wm(pd.weights_desc(), eng_), bm(bias_md, eng_);
    memory wplain = over({dims(w), dt::f32, tag::oi}, constant(w));
    dnnl::reorder(wplain, wm).execute(strm_, wplain, wm);
    std::memcpy(bm.get_data_handle(), constant(n.inputs[2]), bias_md.get_size());
    strm_.wait();
    memory out(pd.dst_desc(), eng_);
    dnnl::inner_product_forward prim(pd);
    steps_.push_back({"Gemm", [this, prim, x, wm, bm, out]() {
                        prim.execute(strm_, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, wm},
                                             {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, out}});
                      }});
    mem_[y] = out;
  }

  const Graph& g_;
  dnnl::engine eng_;
  dnnl::stream strm_;
  std::vector<float> input_, output_;
  std::map<ValueId, memory> mem_;
  std::map<ValueId, std::vector<NodeId>> readers_;
  std::map<NodeId, size_t> step_of_;
  std::set<NodeId> skipped_;  // fused into an earlier primitive
  std::vector<Step> steps_;
};
#endif

int run(int argc, char** argv) {
  CLI::App app{
      "An ONNX CNN's fp32 inference: Weft's LLVM path against the same graph on oneDNN (fused "
      "convolutions in oneDNN's layouts), interleaved in one process with the same thread "
      "count (--threads for Weft; set OMP_NUM_THREADS alike for oneDNN); prints both times, "
      "their ratio, the output difference and each side's time by operator."};
  std::string model, input, json_out;
  int rounds = 5, threads = 1;
  app.add_option("model", model, "the .onnx file")->required();
  app.add_option("--input", input, "its input (.npy, float32)")->required();
  app.add_option("--rounds", rounds, "timed rounds (median)")->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "Weft's thread pool")->check(CLI::Range(1, 256));
  app.add_option("--json", json_out, "write the figures as JSON here");
  CLI11_PARSE(app, argc, argv);
  if (!json_out.empty()) {  // checked before the long work; nothing is left behind
    const std::filesystem::path dir = std::filesystem::absolute(json_out).parent_path();
    if (!std::filesystem::is_directory(dir))
      throw UserError("--json '" + json_out + "': no directory '" + dir.string() + "'");
  }
#ifndef WEFT_HAVE_DNNL
  throw UserError("bench_onnx_onednn was built without oneDNN (libdnnl-dev): nothing to compare");
#else
  namespace rg = weft::rt::graph;
  const auto imported = weft::compiler::onnx_import::import_onnx(model);
  const Graph& g = imported.graph;
  const rg::HostArray x = rg::read_input_npy(input, imported);
  rg::LlvmGraphRunner weft_run(g, threads);
  OneDnnGraph onednn(g, std::vector<float>(x.data.begin(), x.data.end()));
  const rg::GraphRun first = weft_run.run({x});
  onednn.run();
  std::vector<double> w_cpu, w_wall, d_cpu, d_wall;
  std::map<std::string, double> weft_ops, dnnl_ops;
  rg::GraphRun last;
  for (int r = 0; r < rounds; ++r) {
    weft::bench::Stopwatch a;
    last = weft_run.run({x});
    w_cpu.push_back(a.cpu());
    w_wall.push_back(a.wall());
    weft::bench::Stopwatch b;
    onednn.run();
    d_cpu.push_back(b.cpu());
    d_wall.push_back(b.wall());
  }
  std::map<std::string, std::string> label;
  for (NodeId id : g.topo_order()) label[g.node(id).name] = op_label(g.node(id));
  for (const rg::NodeRecord& n : last.nodes) weft_ops[label.at(n.name)] += n.seconds;
  std::map<std::string, double> dnnl_convs;
  onednn.run(&dnnl_ops, &dnnl_convs);
  const std::vector<float>& ref = onednn.run();
  const rg::HostArray& y = last.outputs.at(0);
  double worst = 0, scale = 0;
  for (size_t k = 0; k < ref.size() && k < y.data.size(); ++k) {
    worst = std::max(worst, std::fabs(double(y.data[k]) - ref[k]));
    scale = std::max(scale, std::fabs(double(ref[k])));
  }
  const double wc = weft::bench::median(w_cpu), dc = weft::bench::median(d_cpu);
  const double ww = weft::bench::median(w_wall), dw = weft::bench::median(d_wall);
  std::printf("model %s, host CPU %s, %d thread(s), %d rounds (medians)\n", model.c_str(),
              weft::compiler::codegen::host_cpu_description().c_str(), threads, rounds);
  std::printf("  weft llvm path   %8.2f ms cpu  %8.2f ms wall\n", wc * 1e3, ww * 1e3);
  std::printf("  oneDNN           %8.2f ms cpu  %8.2f ms wall\n", dc * 1e3, dw * 1e3);
  std::printf("  weft / oneDNN    %8.3fx cpu  %8.3fx wall   output max|diff| / max|ref| = %.2e\n",
              wc / dc, ww / dw, scale > 0 ? worst / scale : worst);
  std::printf("  by operator (last round, ms): weft");
  for (const auto& [op, s] : weft_ops) std::printf("  %s %.2f", op.c_str(), s * 1e3);
  std::printf("\n                                oneDNN");
  for (const auto& [op, s] : dnnl_ops) std::printf("  %s %.2f", op.c_str(), s * 1e3);
  std::printf("\n");
  if (!json_out.empty()) {
    nlohmann::ordered_json j;
    j["model"] = model;
    j["host_cpu"] = weft::compiler::codegen::host_cpu_description();
    j["threads"] = threads;
    j["rounds"] = rounds;
    j["weft_first_run_seconds"] = first.seconds;
    j["weft_cpu_seconds"] = wc;
    j["weft_wall_seconds"] = ww;
    j["onednn_cpu_seconds"] = dc;
    j["onednn_wall_seconds"] = dw;
    j["weft_over_onednn_cpu"] = wc / dc;
    j["weft_over_onednn_wall"] = ww / dw;
    j["output_error"] = scale > 0 ? worst / scale : worst;
    j["weft_by_op_seconds"] = weft_ops;
    j["onednn_by_op_seconds"] = dnnl_ops;
    // Each convolution, last round: Weft's node (its folded epilogue included) against
    // oneDNN's primitive (post-ops included).
    nlohmann::ordered_json convs = nlohmann::ordered_json::array();
    for (const rg::NodeRecord& n : last.nodes) {
      auto it = dnnl_convs.find(n.name);
      if (it == dnnl_convs.end()) continue;
      convs.push_back({{"node", n.name}, {"op", label.at(n.name)}, {"macs", n.macs},
                       {"weft_seconds", n.seconds}, {"onednn_seconds", it->second}});
    }
    j["convs"] = convs;
    std::ofstream(json_out) << j.dump(2) << "\n";
  }
  return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_onnx_onednn: %s\n", e.what());
    return 1;
  }
}
