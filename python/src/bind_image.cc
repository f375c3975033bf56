// weft.run_image: a program held in a DRAM image (weft.assemble's bytes, placed with its data)
// run on one of the accelerator's engines, as `weft sim` runs one (runtime/cli/image_run.h):
// the final image, the statistics of `weft sim --json` and the cycle engine's timeline, with the
// GIL released and Ctrl-C stopping the run.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/cli/image_run.h"

namespace weft::py_bind {

namespace {

// The bytes of a bytes, bytearray or uint8 NumPy array.
std::vector<uint8_t> image_bytes(py::handle h) {
  if (py::isinstance<py::bytes>(h) || py::isinstance<py::bytearray>(h)) {
    const std::string s = py::isinstance<py::bytes>(h) ? std::string(h.cast<py::bytes>())
                                                       : std::string(h.cast<py::bytearray>());
    return std::vector<uint8_t>(s.begin(), s.end());
  }
  if (py::isinstance<py::array>(h)) {
    py::array a = py::reinterpret_borrow<py::array>(h);
    if (std::string(py::str(a.dtype())) != "uint8" || a.ndim() != 1)
      throw UserError("run_image: image: a NumPy array must be one-dimensional uint8, not " +
                      std::string(py::str(a.dtype())) + " with " + std::to_string(a.ndim()) +
                      " dimensions");
    py::array_t<uint8_t, py::array::c_style | py::array::forcecast> c(a);
    return std::vector<uint8_t>(c.data(), c.data() + c.size());
  }
  throw UserError("run_image: image: expected bytes, bytearray or a uint8 numpy.ndarray, got " +
                  std::string(py::str(py::type::of(h).attr("__name__"))));
}

py::dict run_image(py::handle image_obj, std::optional<int64_t> insn_count, int64_t insn_offset,
                   const std::string& config, const std::string& engine,
                   const std::string& platform, std::optional<int64_t> size,
                   std::optional<bool> trace, double timeout) {
  const isa::Layout& layout = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform(platform);
  std::vector<uint8_t> image = image_bytes(image_obj);
  if (insn_offset < 0 || insn_offset % 16 != 0)
    throw UserError("run_image: insn_offset " + std::to_string(insn_offset) +
                    " is not a non-negative multiple of 16 (the instruction size)");
  if (insn_count && *insn_count < 1)
    throw UserError("run_image: insn_count " + std::to_string(*insn_count) + " is below 1");
  const int64_t count = insn_count.value_or((int64_t(image.size()) - insn_offset) / 16);
  if (size) {
    if (*size < int64_t(image.size()) || *size > (int64_t{1} << 34))
      throw UserError("run_image: size " + std::to_string(*size) + " is out of range (at least "
                      "the image's " + std::to_string(image.size()) + " bytes, at most 16 GiB)");
    image.resize(size_t(*size), 0);
  }
  cli::DeviceRunOptions o;
  o.engine = engine;
  o.timeout_s = timeout;
  const bool keep = trace.value_or(engine == "cycle");
  o = o.checked_for_run(keep);
  cli::RunCanceller canceller;
  o.canceller = &canceller;
  driver::Timeline timeline;
  nlohmann::ordered_json stats;
  run_interruptible(
      [&] {
        stats = cli::run_program_image(o, layout, p, image, uint64_t(insn_offset),
                                       uint64_t(std::max<int64_t>(count, 0)), &timeline);
      },
      [&] { canceller.cancel(); });
  py::dict r;
  r["image"] = py::bytes(reinterpret_cast<const char*>(image.data()), image.size());
  r["stats"] = to_python(stats);
  r["timeline"] = keep ? to_python(timeline.to_json()) : py::none();
  return r;
}

}  // namespace

void bind_image(py::module_& m) {
  m.def("run_image", &run_image, py::arg("image"), py::arg("insn_count") = py::none(),
        py::arg("insn_offset") = 0, py::arg("config") = "gemm8x8", py::arg("engine") = "cycle",
        py::arg("platform") = "sim", py::arg("size") = py::none(), py::arg("trace") = py::none(),
        py::arg("timeout") = 3600.0,
        "Runs a program held in a DRAM image on an engine: {'image': the final image, 'stats': "
        "weft sim's statistics, 'timeline': the cycle engine's or None}.");
}

}  // namespace weft::py_bind
