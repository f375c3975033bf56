// weft.ops: the accelerator's operators on NumPy arrays, through the same function as
// `weft run dense` (runtime/cli/dense_run.h): the options and knob choice of the CLI, the run
// on an engine with the GIL released, the check against the CPU reference, and the CLI's JSON
// report as the statistics. python/weft/ops.py wraps the result.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/cli/dense_run.h"

namespace weft::py_bind {

namespace {

// A 2-D int8 array's rows, columns and elements (copied), or UserError naming it.
std::vector<int8_t> int8_matrix(py::handle h, const char* what, int64_t* rows, int64_t* cols) {
  const std::string where = std::string("dense: ") + what;
  if (!py::isinstance<py::array>(h))
    throw UserError(where + ": expected a numpy.ndarray, got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(h);
  const std::string dtype = py::str(a.dtype());
  if (dtype != "int8") throw UserError(where + ": dtype " + dtype + ", expected int8");
  if (a.ndim() != 2)
    throw UserError(where + ": " + std::to_string(a.ndim()) + " dimensions, expected 2");
  *rows = a.shape(0);
  *cols = a.shape(1);
  if (*rows == 0 || *cols == 0) throw UserError(where + ": the array is empty");
  py::array_t<int8_t, py::array::c_style | py::array::forcecast> c(a);
  std::vector<int8_t> v(static_cast<size_t>(*rows * *cols));
  std::memcpy(v.data(), c.data(), v.size());
  return v;
}

py::dict dense(py::handle x, py::handle w, const std::string& config, const std::string& engine,
               int shift, bool relu, const std::string& platform, std::optional<int64_t> vthreads,
               std::optional<std::string> vthread_axis, std::optional<int64_t> tile_m,
               std::optional<int64_t> tile_n, std::optional<int64_t> tile_k,
               const std::string& tune_db, bool no_records, double timeout, bool trace) {
  cli::DenseOptions d;
  int64_t kx = 0, kw = 0;
  const std::vector<int8_t> a = int8_matrix(x, "x", &d.m, &kx);
  const std::vector<int8_t> b = int8_matrix(w, "w", &d.n, &kw);
  if (kx != kw)
    throw UserError("dense: x is " + std::to_string(d.m) + " x " + std::to_string(kx) +
                    " and w is " + std::to_string(d.n) + " x " + std::to_string(kw) +
                    ": their second dimensions (K) differ");
  d.k = kx;
  d.config = config;
  d.platform = platform;
  d.shift = shift;
  d.relu = relu;
  d.tune_db = tune_db;
  // Any knob given makes the run use the chooser and the given knobs, as on the command line.
  d.no_records = no_records || vthreads || vthread_axis || tile_m || tile_n || tile_k;
  if (vthreads) d.vthreads = *vthreads;
  if (vthread_axis) d.vthread_axis = *vthread_axis;
  d.tile_m = tile_m.value_or(0);
  d.tile_n = tile_n.value_or(0);
  d.tile_k = tile_k.value_or(0);
  cli::DeviceRunOptions dev;
  dev.engine = engine;
  dev.timeout_s = timeout;
  for (const auto& [name, v] : {std::pair<const char*, std::optional<int64_t>>{"tile_m", tile_m},
                                {"tile_n", tile_n}, {"tile_k", tile_k}}) {
    if (v && *v < 1)
      throw UserError(std::string("dense: ") + name + " " + std::to_string(*v) +
                      " is out of range (at least 1)");
  }

  cli::DenseRun r;
  {
    py::gil_scoped_release release;
    const compiler::ops::DenseKnobs knobs = d.knobs(isa::layout_for(d.config));
    r = cli::run_dense_accel(d, dev, knobs, a, b, {}, trace);
  }
  cli::check_dense_run(r, d.n);
  py::array_t<int8_t> out({d.m, d.n});
  std::memcpy(out.mutable_data(), r.out.data(), r.out.size());
  py::dict result;
  result["output"] = out;
  result["stats"] = to_python(r.report);
  result["timeline"] = trace ? to_python(r.trace.to_json()) : py::none();
  return result;
}

}  // namespace

void bind_ops(py::module_& root) {
  py::module_ m = root.def_submodule("ops", "the accelerator's operators (weft.ops wraps these)");
  m.def("dense", &dense, py::arg("x"), py::arg("w"), py::arg("config") = "gemm8x8",
        py::arg("engine") = "cycle", py::arg("shift") = 8, py::arg("relu") = false,
        py::arg("platform") = "sim", py::arg("vthreads") = py::none(),
        py::arg("vthread_axis") = py::none(), py::arg("tile_m") = py::none(),
        py::arg("tile_n") = py::none(), py::arg("tile_k") = py::none(), py::arg("tune_db") = "",
        py::arg("no_records") = false, py::arg("timeout") = 3600.0, py::arg("trace") = false,
        "int8 dense on an accelerator engine: clip((x . w^T) >> shift) as int8; a dict with "
        "output, stats (the report of `weft run dense`) and timeline.");
  root.def("timeline_svg",
           [](const std::string& doc, int width, const std::string& title) {
             driver::TimelineSvgOptions o;
             o.width = width;
             o.title = title;
             return driver::render_timeline_svg(nlohmann::json::parse(doc), o);
           },
           py::arg("doc"), py::arg("width") = 1200, py::arg("title") = "",
           "A cycle-engine timeline (Chrome trace JSON text) as an SVG picture.");
}

}  // namespace weft::py_bind
