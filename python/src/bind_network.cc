// weft.compile and the compiled networks: for target "accel" the graph pipeline
// (compiler/graph/pipeline.h) and the network executor (runtime/graph/executor.h) through the
// calls `weft run resnet18` / `weft run MODEL.onnx` make (compile_graph, GraphExecutor,
// open_graph_device, run; Ctrl-C cancels the run); for target "llvm" the float32 network on the
// host CPU (runtime/graph/cpu_graph.h's LlvmGraphRunner), as `weft run MODEL.onnx --target
// llvm` runs it (Ctrl-C stops it before the next node).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "compiler/graph/dump.h"
#include "compiler/graph/pipeline.h"
#include "hardware/cost/energy_table.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/graph/cpu_graph.h"
#include "runtime/graph/executor.h"

namespace weft::py_bind {

namespace {

std::vector<std::vector<int64_t>> shapes_of(const cg::Graph& g, const std::vector<cg::ValueId>& v) {
  std::vector<std::vector<int64_t>> out;
  for (cg::ValueId id : v) out.push_back(g.value(id).type.shape);
  return out;
}

// The run's inputs: one array for a one-input network, else a sequence of them.
std::vector<py::object> input_list(py::handle x, size_t count) {
  if (count == 1) return {py::reinterpret_borrow<py::object>(x)};
  if (!py::isinstance<py::sequence>(x) || py::isinstance<py::array>(x))
    throw UserError("run: the network takes " + std::to_string(count) +
                    " inputs; give a list of arrays");
  const py::sequence xs = py::reinterpret_borrow<py::sequence>(x);
  if (xs.size() != count)
    throw UserError("run: the network takes " + std::to_string(count) + " inputs, given " +
                    std::to_string(xs.size()));
  std::vector<py::object> out;
  for (size_t i = 0; i < count; ++i) out.push_back(xs[i]);
  return out;
}

py::object one_or_tuple(const py::list& outs) {
  return outs.size() == 1 ? py::object(outs[0]) : py::object(py::tuple(outs));
}

// A network compiled for a configuration, ready to run on any engine.
class Network {
 public:
  Network(const PyGraph& g, const std::string& config, const std::string& platform,
          const cg::GraphCompileOptions& co, const rt::graph::ExecutorOptions& eo)
      : layout_(isa::layout_for(config)),
        platform_(isa::find_platform(platform)),
        compiled_(cg::compile_graph(g.qdq_float ? *g.qdq_float : *g.g, layout_, platform_, co)),
        exe_(compiled_, layout_, platform_, eo),
        inputs_(shapes_of(*g.g, g.g->inputs())),
        outputs_(shapes_of(*g.g, g.g->outputs())) {}

  py::tuple run(py::handle x, const std::string& engine, bool trace) {
    std::vector<std::vector<float>> in;
    const std::vector<py::object> xs = input_list(x, inputs_.size());
    for (size_t i = 0; i < xs.size(); ++i)
      in.push_back(f32_array(xs[i], inputs_[i],
                             inputs_.size() == 1 ? "run: the input" : "run: input " + std::to_string(i)));
    rt::graph::RunResult r;
    run_interruptible(
        [&] {
          auto dev = rt::graph::open_graph_device(engine, exe_, layout_, platform_);
          r = exe_.run(*dev, in);
        },
        [this] { exe_.cancel(); });
    py::list outs;
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      py::array_t<float> a(outputs_.at(i));
      if (size_t(a.size()) != r.outputs[i].size())
        throw InternalError("run: output " + std::to_string(i) + " has the wrong size");
      std::memcpy(a.mutable_data(), r.outputs[i].data(), r.outputs[i].size() * sizeof(float));
      outs.append(a);
    }
    // Priced with the shipped energy table, as `weft run` does without --energy.
    rt::graph::add_energy(r.report, cost::energy_table_for(""), layout_, platform_);
    py::dict report = to_python(r.report.to_json());
    report["table"] = r.report.table();
    if (trace) report["timeline"] = to_python(r.report.timeline());
    return py::make_tuple(one_or_tuple(outs), report);
  }
  std::string listing() const { return exe_.listing(); }
  std::string dump() const { return cg::to_text(compiled_.graph); }

 private:
  const isa::Layout& layout_;
  const isa::Platform& platform_;
  cg::CompiledGraph compiled_;
  rt::graph::GraphExecutor exe_;
  std::vector<std::vector<int64_t>> inputs_, outputs_;
};

// The float32 network on the host CPU (kernels JIT-compiled on the first run).
class CpuNetwork {
 public:
  CpuNetwork(const PyGraph& g, int threads) : g_(g), runner_(*g.g, threads) {}

  py::tuple run(py::handle x) {
    const cg::Graph& g = *g_.g;
    const std::vector<py::object> xs = input_list(x, g.inputs().size());
    std::vector<rt::graph::HostArray> in;
    for (size_t i = 0; i < xs.size(); ++i) in.push_back(host_array(xs[i], i));
    rt::graph::GraphRun run;
    run_interruptible([&] { run = runner_.run(in); }, [this] { runner_.cancel(); });
    py::list outs;
    for (const rt::graph::HostArray& y : run.outputs) outs.append(numpy_of(y));
    double macs = 0;
    for (const auto& n : run.nodes) macs += n.macs;
    py::dict report;
    report["graph"] = g.name();
    report["target"] = "llvm";
    report["nodes"] = to_python(rt::graph::per_node_json(run));
    report["macs"] = macs;
    report["run_seconds"] = run.seconds;
    report["compile_seconds"] = runner_.compile_seconds();
    report["kernels_compiled"] = runner_.kernels_compiled();
    report["gflops"] = run.seconds > 0 ? 2 * macs / run.seconds * 1e-9 : 0.0;
    return py::make_tuple(one_or_tuple(outs), report);
  }
  std::string dump() const { return cg::to_text(*g_.g); }

 private:
  // Input `k` as the graph holds it: float32, int8 or int32 of the input's shape (uint8 for a
  // uint8 input of an ONNX model, held as int8 = uint8 - 128).
  rt::graph::HostArray host_array(const py::object& x, size_t k) const {
    const cg::Value& v = g_.g->value(g_.g->inputs()[k]);
    const std::string what =
        g_.g->inputs().size() == 1 ? "run: the input" : "run: input " + std::to_string(k);
    const bool u8 = g_.uint8_values.count(v.id) != 0;
    rt::graph::HostArray h;
    h.dtype = v.type.dtype;
    h.shape = v.type.shape;
    if (v.type.dtype == cg::DType::F32) {
      const std::vector<float> f = f32_array(x, v.type.shape, what);
      h.data.assign(f.begin(), f.end());
      return h;
    }
    const std::string want = u8 ? "uint8" : v.type.dtype == cg::DType::I8 ? "int8" : "int32";
    if (!py::isinstance<py::array>(x))
      throw UserError(what + ": expected a numpy.ndarray of " + want);
    py::array a = py::reinterpret_borrow<py::array>(x);
    const std::string dtype = py::str(a.dtype());
    const std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
    if (dtype != want) throw UserError(what + ": dtype " + dtype + ", expected " + want);
    if (got != v.type.shape)
      throw UserError(what + ": shape " + cg::shape_str(got) + ", expected " +
                      cg::shape_str(v.type.shape));
    py::array_t<double, py::array::c_style | py::array::forcecast> d(a);
    h.data.assign(d.data(), d.data() + d.size());
    if (u8)
      for (double& e : h.data) e -= 128;
    return h;
  }
  static py::array numpy_of(const rt::graph::HostArray& y) {
    auto fill = [&](auto a) {
      auto* p = a.mutable_data();
      for (size_t i = 0; i < y.data.size(); ++i) p[i] = static_cast<decltype(+p[0])>(y.data[i]);
      return py::array(a);
    };
    if (y.dtype == cg::DType::F32) return fill(py::array_t<float>(y.shape));
    if (y.dtype == cg::DType::I8) return fill(py::array_t<int8_t>(y.shape));
    return fill(py::array_t<int32_t>(y.shape));
  }

  PyGraph g_;  // holds the graph the runner refers to
  rt::graph::LlvmGraphRunner runner_;
};

}  // namespace

void bind_network(py::module_& m) {
  py::class_<Network>(m, "Network", "A network compiled for the accelerator (weft.compile).")
      .def("run", &Network::run, py::arg("x"), py::arg("engine") = "cycle",
           py::arg("trace") = false,
           "Runs on an engine (functional, cycle, rtl): (outputs, report dict). Ctrl-C "
           "cancels the run (KeyboardInterrupt).")
      .def("listing", &Network::listing, "The executor's static list of steps.")
      .def("dump", &Network::dump, "The compiled graph as text.");
  py::class_<CpuNetwork>(m, "CpuNetwork",
                         "A float32 network on the host CPU (weft.compile(..., target=\"llvm\")).")
      .def("run", &CpuNetwork::run, py::arg("x"),
           "(outputs, report dict). Ctrl-C stops the run before its next node "
           "(KeyboardInterrupt).")
      .def("dump", &CpuNetwork::dump, "The graph as text.");

  m.def("compile_accel",
        [](const PyGraph& g, const std::string& config, const std::string& platform,
           py::handle calibrate, bool per_channel, size_t tune,
           std::optional<std::string> knob_cache, const std::string& tune_db, bool no_records) {
          if (!g.qdq_error.empty()) throw UserError(g.qdq_error);
          cg::GraphCompileOptions co;
          co.quantize = quantize_options(g.qdq_float ? *g.qdq_float : *g.g, calibrate,
                                         per_channel || g.qdq_per_channel);
          co.quantize.fixed_exponents = g.qdq_exponents;
          if (tune < 1) throw UserError("compile: tune must be at least 1");
          rt::graph::ExecutorOptions eo;
          eo.tune_candidates = tune;
          eo.knob_cache = knob_cache.value_or(rt::graph::default_graph_knob_cache());
          eo.use_records = !no_records;
          eo.tune_db = tune_db;
          py::gil_scoped_release release;
          return std::make_unique<Network>(g, config, platform, co, eo);
        },
        py::arg("graph"), py::arg("config"), py::arg("platform"), py::arg("calibrate"),
        py::arg("per_channel"), py::arg("tune"), py::arg("knob_cache"), py::arg("tune_db"),
        py::arg("no_records"),
        "Quantizes and compiles a graph for the accelerator (weft.compile's target=\"accel\").");
  m.def("compile_llvm",
        [](const PyGraph& g, int threads) {
          if (threads < 1 || threads > 1024)
            throw UserError("compile: threads " + std::to_string(threads) +
                            " is outside [1, 1024]");
          return std::make_unique<CpuNetwork>(g, threads);
        },
        py::arg("graph"), py::arg("threads"),
        "The float32 network on the host CPU (weft.compile's target=\"llvm\").");
}

}  // namespace weft::py_bind
