// weft.ops.dense / conv2d with target="llvm" or "cuda": the operator on the host CPU (the LLVM
// JIT, with the tuned schedule the CLI picks) or an NVIDIA GPU, through the same function as
// `weft run dense|conv2d --target llvm|cuda` (runtime/cli/op_target.h) on the caller's arrays
// instead of random ones: the warm-up and the timed runs with the GIL released (Ctrl-C stops
// them between runs: runtime/cli/run_cancel.h), the check against the scalar reference, and the
// CLI's JSON report. The element type is the arrays': float32 or int8 (int32 output), and on
// the GPU float16 (float32 output).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>

#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "python/src/numpy_args.h"
#include "runtime/cli/op_target.h"

namespace weft::py_bind {

namespace {

// The values of `h` (a NumPy array of `ndim` dimensions) as doubles, its dtype and shape;
// UserError naming `where` for another type or rank, an empty array, or a non-finite float.
std::vector<double> plain_values(py::handle h, const std::string& where, size_t ndim,
                                 std::string* dtype, std::vector<int64_t>* shape) {
  py::array a = numpy_array(h, where);
  *dtype = py::str(a.dtype());
  if (*dtype != "float32" && *dtype != "float16" && *dtype != "int8")
    throw UserError(where + ": dtype " + *dtype + ", expected float32, int8 or (cuda) float16");
  check_shape(a, where, ndim, shape);
  py::array_t<double, py::array::c_style | py::array::forcecast> c(a);
  std::vector<double> v(c.data(), c.data() + c.size());
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw UserError(where + ": element " + std::to_string(i) + " is not finite");
  return v;
}

py::array output_array(const std::vector<int64_t>& shape, const std::vector<double>& y,
                       const std::string& dtype) {
  auto fill = [&](auto a) {
    if (size_t(a.size()) != y.size()) throw InternalError("the output has the wrong size");
    auto* p = a.mutable_data();
    for (size_t i = 0; i < y.size(); ++i) p[i] = static_cast<decltype(+p[0])>(y[i]);
    return py::array(a);
  };
  if (dtype == "int32") return fill(py::array_t<int32_t>(shape));
  if (dtype == "float32") return fill(py::array_t<float>(shape));
  throw InternalError("an operator output of dtype " + dtype);
}

py::dict on_target(const std::string& op, py::handle x, py::handle w, int64_t stride,
                   int64_t pad, const std::string& target, int threads, int repeats,
                   const std::string& gpu_path, const std::string& tune_db, bool no_records) {
  const size_t rank = op == "dense" ? 2 : 4;
  std::string xt, wt;
  std::vector<int64_t> xs, ws;
  const std::vector<double> xv = plain_values(x, op + ": x", rank, &xt, &xs);
  const std::vector<double> wv = plain_values(w, op + ": w", rank, &wt, &ws);
  if (xt != wt) throw UserError(op + ": x is " + xt + " and w is " + wt + "; give one dtype");
  cli::TargetOptions o;
  o.target = target;
  o.dtype = xt;
  o.threads = threads;
  o.repeats = repeats;
  o.gpu_path = gpu_path;
  o.tune_db = tune_db;
  o.no_tuned = no_records;
  if (!o.is_llvm_or_cuda())
    throw InternalError("on_target with target '" + target + "'");  // ops.py sends accel elsewhere
  if (o.is_llvm() && (threads < 1 || threads > 1024))
    throw UserError(op + ": threads " + std::to_string(threads) + " is outside [1, 1024]");
  rt::OpRequest r;
  if (op == "dense") {
    if (xs[1] != ws[1])
      throw UserError("dense: x is " + std::to_string(xs[0]) + " x " + std::to_string(xs[1]) +
                      " and w is " + std::to_string(ws[0]) + " x " + std::to_string(ws[1]) +
                      ": their second dimensions (K) differ");
    r = cli::dense_request(o, xs[0], ws[0], xs[1]);
  } else {
    check_conv2d_shapes(xs, ws);
    r = cli::conv2d_request(o, "", xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], stride, pad);
  }
  cli::RunCanceller canceller;
  o.canceller = &canceller;
  rt::OpIo io;
  io.x = &xv;
  io.w = &wv;
  std::vector<double> y;
  io.y = &y;
  nlohmann::ordered_json report;
  run_interruptible(
      [&] {
        rt::OutputSet none;
        report = cli::run_on_target(o, r, none, io);
      },
      [&] { canceller.cancel(); });
  cli::check_target_run(report, op);
  py::dict result;
  result["output"] = output_array(rt::shapes_of(r).y, y, report["output_dtype"].get<std::string>());
  result["stats"] = to_python(report);
  result["timeline"] = py::none();
  return result;
}

}  // namespace

void bind_op_target(py::module_& ops) {
  ops.def("on_target", &on_target, py::arg("op"), py::arg("x"), py::arg("w"), py::arg("stride"),
          py::arg("pad"), py::arg("target"), py::arg("threads"), py::arg("repeats"),
          py::arg("gpu_path"), py::arg("tune_db"), py::arg("no_records"),
          "dense or conv2d on the host CPU (target llvm) or a GPU (cuda), as `weft run OP "
          "--target llvm|cuda` runs it, on the given arrays; a dict with output, stats (the "
          "CLI's report) and timeline (None).");
}

}  // namespace weft::py_bind
