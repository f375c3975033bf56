// Running a workload on one design point (see workload.h).
#include "runtime/dse/workload.h"

#include <random>
#include <sstream>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/graph/executor.h"
#include "runtime/io/files.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"
#include "runtime/tune/knob_search.h"
#include "simulator/common/activity.h"
#ifdef WEFT_DSE_ONNX
#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/qdq.h"
#endif

namespace weft::rt::dse {

namespace {

namespace cg = compiler::graph;
namespace ops = compiler::ops;

// The threads of a conv2d or dense schedule, as `weft run` takes them by default.
constexpr int64_t kVthreads = 2;
constexpr auto kTimeout = std::chrono::minutes(10);

Layer parse_layer(const std::string& item) {
  Layer l;
  l.name = item;
  if (item.rfind("dense:", 0) == 0) {
    l.dense = true;
    std::stringstream in(item.substr(6));
    char x1 = 0, x2 = 0;
    if (!(in >> l.gemm.m >> x1 >> l.gemm.n >> x2 >> l.gemm.k) || x1 != 'x' || x2 != 'x' ||
        !in.eof() || l.gemm.m < 1 || l.gemm.n < 1 || l.gemm.k < 1)
      throw UserError("--layers: '" + item + "' is not dense:MxNxK with positive M, N, K");
    l.name = "dense" + item.substr(6);
    return l;
  }
  for (const auto& spec : resnet18_layers())
    if (spec.name == item) {
      l.conv = spec.shape;
      return l;
    }
  throw UserError("--layers: '" + item + "' is not a ResNet-18 layer C1..C12 or dense:MxNxK");
}

// A network: its graph and how it is compiled (synthetic weights, input and calibration).
struct Network {
  cg::Graph graph;
  cg::GraphCompileOptions options;
};

Network network_of(const Workload& w) {
  Network n;
  n.options.quantize.synthetic_samples = 1;
  if (w.kind == Workload::Kind::kResNet18) {
    cg::models::ResNetOptions o;
    o.batch = w.batch;
    n.graph = cg::models::resnet18(o);
    return n;
  }
#ifdef WEFT_DSE_ONNX
  auto imported = compiler::onnx_import::import_onnx(w.model);
  n.graph = std::move(imported.graph);
  if (compiler::onnx_import::has_qdq(n.graph)) {
    auto q = compiler::onnx_import::map_qdq(n.graph);
    n.options.quantize.fixed_exponents = q.exponents;
    if (q.per_channel_weights) n.options.quantize.per_channel = true;
    n.graph = std::move(q.graph);
  }
  if (n.graph.inputs().size() != 1)
    throw UserError("dse: '" + w.model + "' takes " + std::to_string(n.graph.inputs().size()) +
                    " inputs; a design point feeds one synthetic input");
  return n;
#else
  throw UserError("dse: this weft was built without ONNX import");
#endif
}

WorkloadRun run_network(const Workload& w, const isa::Layout& l, const isa::Platform& p,
                        const cost::EnergyTable& table) {
  Network n = network_of(w);
  const cg::CompiledGraph c = cg::compile_graph(n.graph, l, p, n.options);
  graph::ExecutorOptions eo;
  eo.tune_candidates = w.search;
  eo.knob_cache = "";        // points run in parallel: nothing shared on disk
  eo.use_records = false;    // records are per configuration name; a point is new hardware
  eo.llvm_kernels = false;   // the CPU nodes' time is not the point's; no JIT per point
  graph::GraphExecutor exe(c, l, p, eo);
  auto dev = graph::open_graph_device("cycle", exe, l, p, driver::DeviceOptions{});
  const auto x = cg::models::synthetic_input(n.graph.value(n.graph.inputs()[0]).type, 1);
  graph::RunResult r = exe.run(*dev, {x}, kTimeout);
  graph::add_energy(r.report, table, l, p);
  WorkloadRun out;
  out.cycles = r.report.accel_cycles;
  out.macs = r.report.accel_macs;
  out.utilization = r.report.utilization();
  out.energy = r.report.energy;
  for (const auto& s : r.report.steps) {
    if (s.engine != "accel") continue;
    out.layers.push_back({s.node, s.op, s.cycles, s.macs, s.utilization,
                          s.has_energy ? s.energy.total_pj() * 1e-6 : 0.0});
  }
  return out;
}

// One layer's cycles and energy from the device's run details.
LayerResult layer_result(const Layer& layer, const nlohmann::json& details, int64_t macs,
                         const isa::Layout& l, const cost::EnergyTable& table,
                         cost::Energy* energy) {
  LayerResult r;
  r.name = layer.name;
  r.op = layer.dense ? "dense" : "conv2d";
  r.cycles = details.at("cycles").get<uint64_t>();
  r.macs = macs;
  r.utilization = r.cycles ? double(macs) / (double(r.cycles) * double(l.macs_per_uop())) : 0.0;
  *energy = cost::energy_of(table, l, sim::activity_from_json(details.at("activity")), r.cycles);
  r.energy_uj = energy->total_pj() * 1e-6;
  return r;
}

LayerResult run_conv_layer(const Layer& layer, int64_t batch, size_t search, const isa::Layout& l,
                           const isa::Platform& p, const cost::EnergyTable& table,
                           cost::Energy* energy) {
  ops::Conv2dShape s = layer.conv;
  s.n = batch;
  const auto cands = ops::conv2d_candidates(l, p, s, kVthreads, std::max<size_t>(search, 1));
  if (cands.empty())
    throw UserError(layer.name + ": no conv2d schedule fits configuration '" + l.config.name + "'");
  const ops::Conv2dKnobs k = cands.size() == 1 ? cands[0] : measure_knobs(l, p, s, cands).best;
  const Conv2dData data = random_conv2d_data(s, 1);
  const LayerRun run = run_layer(l, p, "cycle", s, k, ops::Conv2dEpilogue{}, data, nullptr);
  return layer_result(layer, run.details, s.macs(), l, table, energy);
}

LayerResult run_dense_layer(const Layer& layer, const isa::Layout& l, const isa::Platform& p,
                            const cost::EnergyTable& table, cost::Energy* energy) {
  const ops::DenseShape& s = layer.gemm;
  const ops::DenseKnobs k = ops::choose_dense_knobs(l, p, s, kVthreads);
  const DenseBuild b = build_dense(l, s, k, ops::DenseEpilogue{});
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &p;
  o.memory_bytes = b.placed.image_bytes;
  auto dev = driver::open_device("cycle", o);
  std::mt19937 rng(1);
  std::vector<int8_t> a(s.m * s.k), w(s.n * s.k);
  for (auto& v : a) v = static_cast<int8_t>(rng() % 256);
  for (auto& v : w) v = static_cast<int8_t>(rng() % 256);
  run_dense(*dev, b, a, w, kTimeout);
  return layer_result(layer, dev->run_details(), s.m * s.n * s.k, l, table, energy);
}

}  // namespace

std::string Workload::key() const {
  std::string k;
  if (kind == Kind::kResNet18) k = "resnet18";
  if (kind == Kind::kOnnx) k = "onnx:" + model;
  if (kind == Kind::kLayers) {
    k = "layers:";
    for (size_t i = 0; i < layers.size(); ++i) k += (i ? "," : "") + layers[i].name;
  }
  return k + ";batch=" + std::to_string(batch) + ";search=" + std::to_string(search);
}

Workload parse_workload(const std::string& what, const std::string& layers, int64_t batch,
                        size_t search) {
  Workload w;
  w.batch = batch;
  w.search = search;
  if (batch < 1 || batch > 256)
    throw UserError("--batch " + std::to_string(batch) + " is out of range (1 to 256)");
  if (search < 1) throw UserError("--search must be at least 1");
  const bool onnx = what.size() > 5 && what.substr(what.size() - 5) == ".onnx";
  if (what != "layers" && !layers.empty())
    throw UserError("--layers goes with the workload 'layers', not '" + what + "'");
  if (what == "resnet18") {
    w.kind = Workload::Kind::kResNet18;
  } else if (onnx) {
#ifndef WEFT_DSE_ONNX
    throw UserError("dse " + what + ": this weft was built without ONNX import (install "
                    "libonnx-dev and reconfigure)");
#endif
    check_input_file(what, "the model");
    if (batch != 1) throw UserError("--batch goes with resnet18 or layers (a model fixes its own)");
    w.kind = Workload::Kind::kOnnx;
    w.model = what;
  } else if (what == "layers") {
    w.kind = Workload::Kind::kLayers;
    if (layers.empty()) throw UserError("dse layers needs --layers (C1..C12, dense:MxNxK)");
    std::stringstream in(layers);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (item.empty()) throw UserError("--layers '" + layers + "' has an empty item");
      w.layers.push_back(parse_layer(item));
    }
  } else {
    throw UserError("dse: '" + what + "' is not resnet18, layers or MODEL.onnx");
  }
  return w;
}

WorkloadRun run_workload(const Workload& w, const isa::Layout& l, const isa::Platform& p,
                         const cost::EnergyTable& table) {
  if (w.kind != Workload::Kind::kLayers) return run_network(w, l, p, table);
  WorkloadRun out;
  for (const Layer& layer : w.layers) {
    cost::Energy e;
    LayerResult r = layer.dense ? run_dense_layer(layer, l, p, table, &e)
                                : run_conv_layer(layer, w.batch, w.search, l, p, table, &e);
    out.cycles += r.cycles;
    out.macs += r.macs;
    out.energy += e;
    out.layers.push_back(std::move(r));
  }
  out.utilization =
      out.cycles ? double(out.macs) / (double(out.cycles) * double(l.macs_per_uop())) : 0.0;
  return out;
}

}  // namespace weft::rt::dse
