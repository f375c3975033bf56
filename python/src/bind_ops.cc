// weft.ops: the accelerator's operators on NumPy arrays, through the same function as
// `weft run dense` (runtime/cli/dense_run.h): the options and knob choice of the CLI, the run
// on an engine with the GIL released (Ctrl-C cancels it: runtime/cli/run_cancel.h), the check
// against the CPU reference, and the CLI's JSON report as the statistics. python/weft/ops.py wraps the result.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "hardware/isa/errors.h"
#include "hardware/isa/json_text.h"
#include "python/src/bindings.h"
#include "python/src/numpy_args.h"
#include "runtime/cli/dense_run.h"

namespace weft::py_bind {

py::array numpy_array(py::handle h, const std::string& where) {
  if (!py::isinstance<py::array>(h))
    throw UserError(where + ": expected a numpy.ndarray, got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  return py::reinterpret_borrow<py::array>(h);
}

void check_shape(const py::array& a, const std::string& where, size_t ndim,
                 std::vector<int64_t>* shape) {
  if (size_t(a.ndim()) != ndim)
    throw UserError(where + ": " + std::to_string(a.ndim()) + " dimensions, expected " +
                    std::to_string(ndim));
  shape->assign(a.shape(), a.shape() + a.ndim());
  if (a.size() == 0) throw UserError(where + ": the array is empty");
}

std::vector<int8_t> int8_array(py::handle h, const std::string& where, size_t ndim,
                               std::vector<int64_t>* shape) {
  py::array a = numpy_array(h, where);
  const std::string dtype = py::str(a.dtype());
  if (dtype != "int8") throw UserError(where + ": dtype " + dtype + ", expected int8");
  check_shape(a, where, ndim, shape);
  py::array_t<int8_t, py::array::c_style | py::array::forcecast> c(a);
  std::vector<int8_t> v(static_cast<size_t>(c.size()));
  std::memcpy(v.data(), c.data(), v.size());
  return v;
}

void check_knobs_at_least_1(const std::string& op,
                            const std::vector<std::pair<const char*, std::optional<int64_t>>>& knobs) {
  for (const auto& [name, v] : knobs)
    if (v && *v < 1)
      throw UserError(op + ": " + name + " " + std::to_string(*v) + " is out of range (at least 1)");
}

py::dict op_result(const std::vector<int64_t>& shape, const std::vector<int8_t>& out,
                   const nlohmann::ordered_json& report, const driver::Timeline* trace) {
  py::array_t<int8_t> a(shape);
  if (size_t(a.size()) != out.size()) throw InternalError("the output has the wrong size");
  std::memcpy(a.mutable_data(), out.data(), out.size());
  py::dict result;
  result["output"] = a;
  result["stats"] = to_python(report);
  result["timeline"] = trace ? to_python(trace->to_json()) : py::none();
  return result;
}

namespace {

py::dict dense(py::handle x, py::handle w, const std::string& config, const std::string& engine,
               int shift, bool relu, const std::string& platform, std::optional<int64_t> vthreads,
               std::optional<std::string> vthread_axis, std::optional<int64_t> tile_m,
               std::optional<int64_t> tile_n, std::optional<int64_t> tile_k,
               const std::string& tune_db, bool no_records, double timeout, bool trace) {
  cli::DenseOptions d;
  std::vector<int64_t> xs, ws;
  const std::vector<int8_t> a = int8_array(x, "dense: x", 2, &xs);
  const std::vector<int8_t> b = int8_array(w, "dense: w", 2, &ws);
  d.m = xs[0], d.n = ws[0];
  const int64_t kx = xs[1], kw = ws[1];
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
  check_knobs_at_least_1("dense", {{"tile_m", tile_m}, {"tile_n", tile_n}, {"tile_k", tile_k}});

  cli::RunCanceller canceller;
  dev.canceller = &canceller;
  cli::DenseRun r;
  run_interruptible(
      [&] {
        const compiler::ops::DenseKnobs knobs = d.knobs(isa::layout_for(d.config));
        r = cli::run_dense_accel(d, dev, knobs, a, b, {}, trace);
      },
      [&] { canceller.cancel(); });
  cli::check_dense_run(r, d.n);
  return op_result({d.m, d.n}, r.out, r.report, trace ? &r.trace : nullptr);
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
  bind_conv2d(m);
  bind_op_target(m);
  root.def("timeline_svg",
           [](const std::string& doc, int width, const std::string& title) {
             driver::TimelineSvgOptions o;
             o.width = width;
             o.title = title;
             return driver::render_timeline_svg(isa::parse_json_text(doc, "the timeline document"), o);
           },
           py::arg("doc"), py::arg("width") = 1200, py::arg("title") = "",
           "A timeline (Chrome trace JSON text: the cycle engine's in cycles, a network run's in "
           "microseconds) as an SVG picture, as `weft trace render` draws it.");
}

}  // namespace weft::py_bind
