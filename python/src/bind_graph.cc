// weft.models, weft.compile and a compiled network's run: the built-in ResNet-18 family as a
// graph, the graph pipeline (compiler/graph/pipeline.h) and the network executor
// (runtime/graph/executor.h) through the same calls as `weft run resnet18`
// (runtime/cli/cmd_run_graph.cc): compile_graph, GraphExecutor, open_graph_device, run. This
// is the one file that binds the graph layer.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "compiler/graph/dump.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/graph/executor.h"

namespace weft::py_bind {

namespace {

namespace cg = compiler::graph;

struct PyGraph {
  std::shared_ptr<cg::Graph> g;
};

std::string shape_text(const std::vector<int64_t>& s) { return cg::shape_str(s); }

// A float32 array of exactly `shape` (C order, copied), or UserError naming `what`.
std::vector<float> f32_array(py::handle h, const std::vector<int64_t>& shape,
                             const std::string& what) {
  if (!py::isinstance<py::array>(h))
    throw UserError(what + ": expected a numpy.ndarray, got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(h);
  const std::string dtype = py::str(a.dtype());
  std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (dtype != "float32")
    throw UserError(what + ": dtype " + dtype + ", expected float32");
  if (got != shape)
    throw UserError(what + ": shape " + shape_text(got) + ", expected " + shape_text(shape));
  py::array_t<float, py::array::c_style | py::array::forcecast> c(a);
  std::vector<float> v(static_cast<size_t>(c.size()));
  std::memcpy(v.data(), c.data(), v.size() * sizeof(float));
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw UserError(what + ": element " + std::to_string(i) + " is not finite");
  return v;
}

// calibrate: a number of synthetic samples, or float32 samples of the input's shape (one, or
// S stacked on a leading axis), as `weft run resnet18 --calibrate` takes them.
cg::QuantizeOptions quantize_options(const cg::Graph& g, py::handle calibrate, bool per_channel) {
  cg::QuantizeOptions q;
  q.per_channel = per_channel;
  if (py::isinstance<py::int_>(calibrate)) {
    q.synthetic_samples = calibrate.cast<int>();
    if (q.synthetic_samples < 1) throw UserError("calibrate: give at least one sample");
    return q;
  }
  const std::vector<int64_t>& in = g.value(g.inputs().at(0)).type.shape;
  if (!py::isinstance<py::array>(calibrate))
    throw UserError("calibrate: a number of synthetic samples or a numpy.ndarray of them");
  py::array a = py::reinterpret_borrow<py::array>(calibrate);
  const std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  const bool many = shape.size() == in.size() + 1 && std::equal(in.begin(), in.end(), shape.begin() + 1);
  if (shape != in && !many)
    throw UserError("calibrate: shape " + shape_text(shape) + ", expected the input's " +
                    shape_text(in) + " or [S," + shape_text(in).substr(1));
  const std::vector<float> all = f32_array(a, shape, "calibrate");
  const size_t samples = many ? size_t(shape[0]) : 1;
  if (samples == 0) throw UserError("calibrate: the array holds no samples");
  const size_t per = all.size() / samples;
  for (size_t i = 0; i < samples; ++i)
    q.calibration.push_back({std::vector<float>(all.begin() + i * per, all.begin() + (i + 1) * per)});
  return q;
}

// A network compiled for a configuration, ready to run on any engine.
class Network {
 public:
  Network(const cg::Graph& g, const std::string& config, const std::string& platform,
          const cg::GraphCompileOptions& co, const rt::graph::ExecutorOptions& eo)
      : layout_(isa::layout_for(config)),
        platform_(isa::find_platform(platform)),
        compiled_(cg::compile_graph(g, layout_, platform_, co)),
        exe_(compiled_, layout_, platform_, eo) {
    for (cg::ValueId v : g.inputs()) inputs_.push_back(g.value(v).type.shape);
    for (cg::ValueId v : g.outputs()) outputs_.push_back(g.value(v).type.shape);
  }

  py::tuple run(py::handle x, const std::string& engine, bool trace) {
    std::vector<std::vector<float>> in;
    if (inputs_.size() == 1) {
      in.push_back(f32_array(x, inputs_[0], "run: the input"));
    } else {
      const py::sequence xs = x.cast<py::sequence>();
      if (xs.size() != inputs_.size())
        throw UserError("run: the network takes " + std::to_string(inputs_.size()) +
                        " inputs, given " + std::to_string(xs.size()));
      for (size_t i = 0; i < xs.size(); ++i)
        in.push_back(f32_array(xs[i], inputs_[i], "run: input " + std::to_string(i)));
    }
    rt::graph::RunResult r;
    {
      py::gil_scoped_release release;
      auto dev = rt::graph::open_graph_device(engine, exe_, layout_, platform_);
      r = exe_.run(*dev, in);
    }
    py::list outs;
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      py::array_t<float> a(outputs_.at(i));
      if (size_t(a.size()) != r.outputs[i].size())
        throw InternalError("run: output " + std::to_string(i) + " has the wrong size");
      std::memcpy(a.mutable_data(), r.outputs[i].data(), r.outputs[i].size() * sizeof(float));
      outs.append(a);
    }
    py::dict report = to_python(r.report.to_json());
    report["table"] = r.report.table();
    if (trace) report["timeline"] = to_python(r.report.timeline());
    return py::make_tuple(outs.size() == 1 ? py::object(outs[0]) : py::object(py::tuple(outs)),
                          report);
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

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<PyGraph>(m, "Graph", "A network (weft.models.resnet18(), ...).")
      .def("dump",
           [](const PyGraph& g) { return cg::to_text(*g.g); }, "The graph as text.")
      .def_property_readonly("name", [](const PyGraph& g) { return g.g->name(); })
      .def_property_readonly("input_shapes",
                             [](const PyGraph& g) {
                               py::list out;
                               for (cg::ValueId v : g.g->inputs())
                                 out.append(py::tuple(py::cast(g.g->value(v).type.shape)));
                               return out;
                             })
      .def_property_readonly("output_shapes", [](const PyGraph& g) {
        py::list out;
        for (cg::ValueId v : g.g->outputs()) out.append(py::tuple(py::cast(g.g->value(v).type.shape)));
        return out;
      });

  py::module_ models = m.def_submodule("models", "built-in networks");
  models.def("resnet18",
             [](int64_t batch, int64_t image, int64_t width, int64_t classes, int64_t stages,
                uint32_t seed) {
               cg::models::ResNetOptions o;
               o.batch = batch, o.image = image, o.width = width, o.classes = classes;
               o.stages = stages, o.seed = seed;
               return PyGraph{std::make_shared<cg::Graph>(cg::models::resnet18(o))};
             },
             py::arg("batch") = 1, py::arg("image") = 224, py::arg("width") = 64,
             py::arg("classes") = 1000, py::arg("stages") = 4, py::arg("seed") = 2016,
             "ResNet-18 (or a smaller member of its family) with deterministic synthetic "
             "weights, as an fp32 graph.");
  models.def("synthetic_input",
             [](const PyGraph& g, uint32_t seed) {
               const cg::TensorType& t = g.g->value(g.g->inputs().at(0)).type;
               const std::vector<float> x = cg::models::synthetic_input(t, seed);
               py::array_t<float> a(t.shape);
               std::memcpy(a.mutable_data(), x.data(), x.size() * sizeof(float));
               return a;
             },
             py::arg("graph"), py::arg("seed") = 1,
             "The deterministic input in [-1, 1) that `weft run resnet18 --seed` feeds.");

  py::class_<Network>(m, "Network", "A network compiled for the accelerator (weft.compile).")
      .def("run", &Network::run, py::arg("x"), py::arg("engine") = "cycle",
           py::arg("trace") = false,
           "Runs on an engine (functional, cycle, rtl): (outputs, report dict).")
      .def("listing", &Network::listing, "The executor's static list of steps.")
      .def("dump", &Network::dump, "The compiled graph as text.");

  m.def("compile",
        [](const PyGraph& g, const std::string& target, const std::string& config,
           const std::string& platform, py::handle calibrate, bool per_channel, size_t tune,
           std::optional<std::string> knob_cache, const std::string& tune_db, bool no_records) {
          if (target != "accel")
            throw UserError("compile: target '" + target +
                            "' is not bound in Python yet; target=\"accel\" is (docs/python.md)");
          cg::GraphCompileOptions co;
          co.quantize = quantize_options(*g.g, calibrate, per_channel);
          if (tune < 1) throw UserError("compile: tune must be at least 1");
          rt::graph::ExecutorOptions eo;
          eo.tune_candidates = tune;
          eo.knob_cache = knob_cache.value_or(rt::graph::default_graph_knob_cache());
          eo.use_records = !no_records;
          eo.tune_db = tune_db;
          py::gil_scoped_release release;
          return std::make_unique<Network>(*g.g, config, platform, co, eo);
        },
        py::arg("graph"), py::arg("target") = "accel", py::arg("config") = "gemm8x8",
        py::arg("platform") = "sim", py::arg("calibrate") = 1, py::arg("per_channel") = false,
        py::arg("tune") = 6, py::arg("knob_cache") = py::none(), py::arg("tune_db") = "",
        py::arg("no_records") = false,
        "Quantizes and compiles a graph for the accelerator, as `weft run resnet18` does.");
}

}  // namespace weft::py_bind
