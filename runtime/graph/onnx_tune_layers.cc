// The tunable layers of an ONNX model (see onnx_tune_layers.h).
#include "runtime/graph/onnx_tune_layers.h"

#include <optional>

#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/qdq.h"
#include "compiler/graph/pipeline.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/cpu_tasks.h"

namespace weft::rt::graph {

using namespace compiler::graph;  // NOLINT: reads the graph IR throughout

namespace {

void add(std::vector<OnnxTuneLayer>& out, OnnxTuneLayer l) {
  for (auto& o : out) {
    if (o.op != l.op) continue;
    const bool same = l.op == "conv2d" ? o.conv.describe() == l.conv.describe()
                                       : o.dense.m == l.dense.m && o.dense.n == l.dense.n &&
                                             o.dense.k == l.dense.k;
    if (same) {
      ++o.count;
      return;
    }
  }
  out.push_back(std::move(l));
}

const std::vector<int64_t>& shape_of(const Graph& g, ValueId v) { return g.value(v).type.shape; }

}  // namespace

std::vector<OnnxTuneLayer> onnx_tune_layers(const std::string& model, const std::string& target,
                                            const std::string& config,
                                            const std::string& platform) {
  const auto imported = compiler::onnx_import::import_onnx(model);
  const Graph& g = imported.graph;
  std::vector<OnnxTuneLayer> out;
  if (target == "llvm") {
    for (size_t i = 0; i < g.num_nodes(); ++i) {
      const Node& n = g.node(static_cast<NodeId>(i));
      if (n.dead) continue;
      OnnxTuneLayer l;
      l.name = n.name;
      if (n.kind == OpKind::Conv) {
        const auto& x = shape_of(g, n.inputs[0]);
        const auto& w = shape_of(g, n.inputs[1]);
        const auto st = n.get_ints("strides", {1, 1}), pads = n.get_ints("pads", {0, 0, 0, 0});
        if (x.size() != 4 || w.size() != 4 || n.get_int("group", 1) != 1 || w[2] != w[3] ||
            st[0] != st[1] || pads[0] != pads[1])
          continue;  // not a square, ungrouped conv2d: nothing the conv2d space tunes
        l.op = "conv2d";
        l.conv = {x[0], x[2], x[3], x[1], w[0], w[2], st[0], pads[0]};
      } else if (n.kind == OpKind::Gemm || n.kind == OpKind::MatMul) {
        const auto& a = shape_of(g, n.inputs[0]);
        const auto& b = shape_of(g, n.inputs[1]);
        if (a.size() != 2 || b.size() != 2) continue;
        const bool ta = n.kind == OpKind::Gemm && n.get_int("transA", 0);
        const bool tb = n.kind == OpKind::Gemm && n.get_int("transB", 0);
        l.op = "dense";
        l.dense = {ta ? a[1] : a[0], tb ? b[0] : b[1], ta ? a[0] : a[1]};
      } else {
        continue;
      }
      add(out, std::move(l));
    }
  } else {
    const isa::Layout& layout = isa::layout_for(config);
    const isa::Platform& pf = isa::find_platform(platform);
    GraphCompileOptions opts;
    std::optional<compiler::onnx_import::QdqMapping> qdq;
    if (compiler::onnx_import::has_qdq(g)) {
      qdq = compiler::onnx_import::map_qdq(g);
      opts.quantize.fixed_exponents = qdq->exponents;
    }
    const CompiledGraph c = compile_graph(qdq ? qdq->graph : g, layout, pf, opts);
    const Graph& cg = c.graph;
    for (size_t i = 0; i < cg.num_nodes(); ++i) {
      const Node& n = cg.node(static_cast<NodeId>(i));
      if (n.dead || (n.kind != OpKind::AccelConv && n.kind != OpKind::AccelDense)) continue;
      // The executor's shape of the kernel (runtime/graph/executor.cc).
      const auto& x = shape_of(cg, n.inputs[0]);
      const auto& w = shape_of(cg, n.inputs[1]);
      OnnxTuneLayer l;
      l.name = n.name;
      l.op = "conv2d";
      const int64_t slices = n.facts.slices.value_or(1);  // a batched dense: one slice's shape
      l.conv.n = x[0] / slices;
      l.conv.ic = x[1];
      l.conv.oc = w[0] / slices;
      if (n.kind == OpKind::AccelConv) {
        l.conv.h = x[2];
        l.conv.w = x[3];
        l.conv.k = w[2];
        l.conv.stride = n.get_ints("strides", {1, 1})[0];
        l.conv.pad = n.get_ints("pads", {0, 0, 0, 0})[0];
      }
      add(out, std::move(l));
    }
  }
  if (out.empty())
    throw UserError("tune " + model + ": no convolution or dense layer to tune for --target " +
                    target +
                    (target == "llvm" ? std::string()
                                      : " --config " + config +
                                            " (the graph pipeline's partition left none on the "
                                            "accelerator; a batch-1 model fits --config vta)"));
  return out;
}

std::vector<tune::Task> onnx_tune_tasks(const std::string& model, const std::string& target,
                                        const std::string& config, const std::string& platform,
                                        const std::string& dtype) {
  std::vector<tune::Task> tasks;
  for (const OnnxTuneLayer& l : onnx_tune_layers(model, target, config, platform)) {
    const std::string name = l.name + (l.count > 1 ? " (x" + std::to_string(l.count) + ")" : "");
    tune::Task t;
    if (target == "llvm") {
      compiler::tune::Workload w =
          l.op == "conv2d" ? tune::conv2d_workload(l.conv) : tune::dense_workload(l.dense);
      w.shape["dtype"] = dtype;
      t = tune::make_cpu_task(w, name);
    } else {
      t = tune::make_accel_conv2d_task(name, config, platform, l.conv);
    }
    t.weight *= l.count;
    t.info["nodes"] = l.count;
    tasks.push_back(std::move(t));
  }
  return tasks;
}

}  // namespace weft::rt::graph
