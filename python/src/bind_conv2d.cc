// weft.ops.conv2d: the accelerator's int8 2D convolution on NumPy arrays, through the same
// function as `weft run conv2d` (runtime/cli/conv2d_run.h): the CLI's options and knob choice
// (tuning records, --search on the cycle model, or the chooser), the run on an engine with the
// GIL released (Ctrl-C cancels it), the check against the CPU reference, and the CLI's JSON report.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "python/src/numpy_args.h"
#include "runtime/cli/conv2d_run.h"

namespace weft::py_bind {

void check_conv2d_shapes(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws) {
  if (ws[1] != xs[1])
    throw UserError("conv2d: x has " + std::to_string(xs[1]) + " input channels (N, IC, H, W) "
                    "and w " + std::to_string(ws[1]) + " (OC, IC, K, K)");
  if (ws[2] != ws[3])
    throw UserError("conv2d: w is " + std::to_string(ws[2]) + " x " + std::to_string(ws[3]) +
                    "; the kernel must be square (OC, IC, K, K)");
}

namespace {

py::dict conv2d(py::handle x, py::handle w, py::handle bias, int64_t stride, int64_t pad,
                const std::string& config, const std::string& engine, int shift, bool no_relu,
                const std::string& platform, std::optional<int64_t> vthreads,
                std::optional<std::string> vthread_axis, std::optional<int64_t> tile_h,
                std::optional<int64_t> tile_w, std::optional<int64_t> tile_ic,
                std::optional<int64_t> tile_oc, int64_t search, const std::string& tune_db,
                bool no_records, double timeout, bool trace) {
  std::vector<int64_t> xs, ws;
  rt::Conv2dData data;
  data.input = int8_array(x, "conv2d: x", 4, &xs);
  data.weight = int8_array(w, "conv2d: w", 4, &ws);
  check_conv2d_shapes(xs, ws);
  cli::Conv2dOptions o;
  o.n = xs[0], o.ic = xs[1], o.h = xs[2], o.w = xs[3], o.oc = ws[0], o.k = ws[2];
  o.stride = stride, o.pad = pad;
  o.no_bias = bias.is_none();
  data.bias.assign(size_t(o.oc), 0);  // the device image holds a bias either way
  if (!o.no_bias) {
    if (!py::isinstance<py::array>(bias) || std::string(py::str(bias.attr("dtype"))) != "int32" ||
        bias.attr("shape").cast<std::vector<int64_t>>() != std::vector<int64_t>{o.oc})
      throw UserError("conv2d: bias must be an int32 numpy.ndarray of shape (" +
                      std::to_string(o.oc) + ",) (one per output channel), or None");
    py::array_t<int32_t, py::array::c_style | py::array::forcecast> b =
        py::reinterpret_borrow<py::array>(bias);
    data.bias.assign(b.data(), b.data() + b.size());
  }
  o.config = config, o.platform = platform, o.shift = shift, o.no_relu = no_relu;
  o.tune_db = tune_db;
  check_knobs_at_least_1("conv2d", {{"tile_h", tile_h}, {"tile_w", tile_w},
                                    {"tile_ic", tile_ic}, {"tile_oc", tile_oc}, {"search", search}});
  o.search = size_t(search);
  // Any knob given makes the run use the chooser and the given knobs, as on the command line.
  o.no_records = no_records || vthreads || vthread_axis || tile_h || tile_w || tile_ic || tile_oc;
  if (vthreads) o.vthreads = *vthreads;
  if (vthread_axis) o.vthread_axis = *vthread_axis;
  o.tile_h = tile_h.value_or(0), o.tile_w = tile_w.value_or(0);
  o.tile_ic = tile_ic.value_or(0), o.tile_oc = tile_oc.value_or(0);
  cli::DeviceRunOptions dev;
  dev.engine = engine;
  dev.timeout_s = timeout;

  cli::RunCanceller canceller;
  dev.canceller = &canceller;
  cli::Conv2dRun r;
  run_interruptible([&] { r = cli::run_conv2d_accel(o, dev, data, trace); },
                    [&] { canceller.cancel(); });
  cli::check_conv2d_run(r);
  const compiler::ops::Conv2dShape s = o.shape();
  return op_result({s.n, s.oc, s.out_h(), s.out_w()}, r.out, r.report, trace ? &r.trace : nullptr);
}

}  // namespace

void bind_conv2d(py::module_& ops) {
  ops.def("conv2d", &conv2d, py::arg("x"), py::arg("w"), py::arg("bias") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("config") = "gemm8x8",
          py::arg("engine") = "cycle", py::arg("shift") = 8, py::arg("no_relu") = false,
          py::arg("platform") = "sim", py::arg("vthreads") = py::none(),
          py::arg("vthread_axis") = py::none(), py::arg("tile_h") = py::none(),
          py::arg("tile_w") = py::none(), py::arg("tile_ic") = py::none(),
          py::arg("tile_oc") = py::none(), py::arg("search") = 1, py::arg("tune_db") = "",
          py::arg("no_records") = false, py::arg("timeout") = 3600.0, py::arg("trace") = false,
          "int8 2D convolution on an accelerator engine: clip(((conv(x, w) >> shift) + bias), "
          "0 (or -128 with no_relu), 127) as int8; a dict with output, stats (the report of "
          "`weft run conv2d`) and timeline.");
}

}  // namespace weft::py_bind
