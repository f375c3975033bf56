// weft.Graph and weft.models: a network as a graph (the built-in ResNet-18 family here,
// imported ONNX models from bind_onnx.cc), its text form before or after a pass of the graph
// pipeline (what `weft compile MODEL --emit graph [--pass P]` prints), and the quantizer's
// calibration options that weft.compile shares.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

#include "compiler/graph/dump.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

cg::QuantizeOptions quantize_options(const cg::Graph& g, py::handle calibrate, bool per_channel) {
  cg::QuantizeOptions q;
  q.per_channel = per_channel;
  if (py::isinstance<py::int_>(calibrate) && !py::isinstance<py::bool_>(calibrate)) {
    q.synthetic_samples = calibrate.cast<int>();
    if (q.synthetic_samples < 1) throw UserError("calibrate: give at least one sample");
    return q;
  }
  const std::vector<int64_t>& in = g.value(g.inputs().at(0)).type.shape;
  if (!py::isinstance<py::array>(calibrate))
    throw UserError("calibrate: a number of synthetic samples or a numpy.ndarray of them");
  py::array a = py::reinterpret_borrow<py::array>(calibrate);
  const std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  const bool many =
      shape.size() == in.size() + 1 && std::equal(in.begin(), in.end(), shape.begin() + 1);
  if (shape != in && !many)
    throw UserError("calibrate: shape " + cg::shape_str(shape) + ", expected the input's " +
                    cg::shape_str(in) + " or [S," + cg::shape_str(in).substr(1));
  const std::vector<float> all = f32_array(a, shape, "calibrate");
  const size_t samples = many ? size_t(shape[0]) : 1;
  if (samples == 0) throw UserError("calibrate: the array holds no samples");
  const size_t per = all.size() / samples;
  for (size_t i = 0; i < samples; ++i)
    q.calibration.push_back(
        {std::vector<float>(all.begin() + i * per, all.begin() + (i + 1) * per)});
  return q;
}

namespace {

// The graph after `pass` ("import": as given; "all": after every pass) in the CLI's text form:
// what `weft compile MODEL --emit graph [--pass P]` prints after its first line.
std::string dump_after(const PyGraph& g, const std::string& pass, const std::string& config,
                       const std::string& platform, py::handle calibrate, bool per_channel) {
  const auto& names = cg::graph_pass_names();
  if (pass != "all" && std::find(names.begin(), names.end(), pass) == names.end()) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw UserError("dump: pass '" + pass + "' is not a pass of the graph pipeline (" + all +
                    "; or all)");
  }
  const isa::Layout& layout = isa::layout_for(config);
  const isa::Platform& pf = isa::find_platform(platform);
  cg::GraphCompileOptions co;
  co.quantize = quantize_options(*g.g, calibrate, per_channel);
  std::string text;
  auto observe = [&](const std::string& p, const cg::Graph& after) {
    if (pass == "all" || p == pass) text += "// ---- after " + p + " ----\n" + cg::to_text(after) + "\n";
  };
  if (pass == "import") {
    observe("import", *g.g);
  } else {
    py::gil_scoped_release release;
    cg::compile_graph(*g.g, layout, pf, co, observe);
  }
  return text;
}

py::list shapes(const cg::Graph& g, const std::vector<cg::ValueId>& ids) {
  py::list out;
  for (cg::ValueId v : ids) out.append(py::tuple(py::cast(g.value(v).type.shape)));
  return out;
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<PyGraph>(m, "Graph", "A network (weft.models.resnet18(), weft.from_onnx(path)).")
      .def("dump",
           [](const PyGraph& g, py::object pass_, const std::string& config,
              const std::string& platform, py::handle calibrate, bool per_channel,
              py::kwargs kw) -> std::string {
             // `pass` is a Python keyword: dump(pass_="quantize") or dump(**{"pass": ...}).
             for (auto item : kw) {
               const std::string k = py::str(item.first);
               if (k != "pass") throw UserError("dump: unexpected keyword argument '" + k + "'");
               if (!pass_.is_none()) throw UserError("dump: give pass or pass_, not both");
               pass_ = py::reinterpret_borrow<py::object>(item.second);
             }
             if (pass_.is_none()) return cg::to_text(*g.g);
             if (!py::isinstance<py::str>(pass_))
               throw UserError("dump: pass must be a pass name (a str)");
             return dump_after(g, pass_.cast<std::string>(), config, platform, calibrate,
                               per_channel);
           },
           py::arg("pass_") = py::none(), py::arg("config") = "gemm8x8",
           py::arg("platform") = "sim", py::arg("calibrate") = 1, py::arg("per_channel") = false,
           "The graph as text; with pass_ (or pass=), the graph after that pass of the graph "
           "pipeline on the configuration (\"import\": as given, \"all\": after every pass), "
           "as `weft compile MODEL --emit graph --pass P` prints it.")
      .def_property_readonly("name", [](const PyGraph& g) { return g.g->name(); })
      .def_property_readonly("input_shapes",
                             [](const PyGraph& g) { return shapes(*g.g, g.g->inputs()); })
      .def_property_readonly("output_shapes",
                             [](const PyGraph& g) { return shapes(*g.g, g.g->outputs()); });
  m.def("graph_pass_names", &cg::graph_pass_names,
        "The graph pipeline's passes in order (\"import\" is the graph as given).");

  py::module_ models = m.def_submodule("models", "built-in networks");
  models.def("resnet18",
             [](int64_t batch, int64_t image, int64_t width, int64_t classes, int64_t stages,
                uint32_t seed) {
               cg::models::ResNetOptions o;
               o.batch = batch, o.image = image, o.width = width, o.classes = classes;
               o.stages = stages, o.seed = seed;
               PyGraph g;
               g.g = std::make_shared<cg::Graph>(cg::models::resnet18(o));
               return g;
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
}

}  // namespace weft::py_bind
