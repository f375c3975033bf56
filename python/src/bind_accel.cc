// weft.build(..., target="accel"): a user's schedule written for the accelerator, compiled and
// placed by runtime/ops/schedule_program.h, as a module whose call runs it on NumPy arrays on
// one of the accelerator's engines (runtime/cli/image_run.h, as `weft sim` runs an image), with
// the GIL released and Ctrl-C stopping the run. python/weft/build.py wraps it.
#include <pybind11/stl.h>

#include <optional>

#include "compiler/accel/printer.h"
#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/cli/image_run.h"
#include "runtime/ops/schedule_program.h"

namespace weft::py_bind {

namespace {

class AccelModule {
 public:
  AccelModule(rt::ScheduleProgram p, BuildArgs a, std::string name, const isa::Layout& layout,
              const isa::Platform& platform, std::string ir)
      : prog_(std::move(p)), args_(std::move(a)), name_(std::move(name)), layout_(layout),
        platform_(platform), ir_(std::move(ir)) {}

  // Runs on `engine`; outputs are written into their arrays. {"stats", "timeline"}.
  py::dict run(const py::args& arrays, const std::string& engine, std::optional<bool> trace,
               double timeout, const std::string& xclbin, const std::string& xrt_emulate) {
    const std::vector<void*> data = args_.arrays(arrays, name_);
    cli::DeviceRunOptions o;
    o.engine = engine;
    o.timeout_s = timeout;
    o.xclbin = xclbin;
    o.xrt_emulate = xrt_emulate;
    if (engine != "xrt" && !(xclbin.empty() && xrt_emulate.empty()))
      throw UserError("run: xclbin and xrt_emulate go with engine='xrt' (not " + engine + ")");
    const bool keep = trace.value_or(engine == "cycle");
    o = o.checked_for_run(keep);
    cli::RunCanceller canceller;
    o.canceller = &canceller;
    std::vector<const void*> in;
    for (size_t i = 0; i < data.size(); ++i)
      in.push_back(args_.all[i]->is_placeholder ? data[i] : nullptr);
    std::vector<uint8_t> image = rt::schedule_image(prog_, in);
    driver::Timeline timeline;
    nlohmann::ordered_json stats;
    run_interruptible(
        [&] {
          stats = cli::run_program_image(o, layout_, platform_, image, 0,
                                         prog_.placed.stream.insn_count, &timeline);
        },
        [&] { canceller.cancel(); });
    for (size_t i = 0; i < data.size(); ++i)
      if (!args_.all[i]->is_placeholder) rt::read_argument(prog_, image, i, data[i]);
    py::dict r;
    r["stats"] = to_python(stats);
    r["timeline"] = keep ? to_python(timeline.to_json()) : py::none();
    return r;
  }

  const std::string& name() const { return name_; }
  const std::string& ir() const { return ir_; }
  std::string asm_listing() const { return rt::listing(layout_, prog_.placed); }
  std::string program() const { return compiler::accel::to_string(prog_.program); }
  std::string config() const { return layout_.config.name; }
  // The image with the program and zeroed tensors, and where each argument is in it.
  py::tuple image() const {
    const std::vector<uint8_t> image = rt::program_image(prog_.placed);
    py::dict at;
    for (const te::Tensor& t : args_.all) at[py::str(t->name)] = prog_.placed.address(t->buffer);
    return py::make_tuple(py::bytes(reinterpret_cast<const char*>(image.data()), image.size()),
                          prog_.placed.stream.insn_count, at);
  }

 private:
  rt::ScheduleProgram prog_;
  BuildArgs args_;
  std::string name_;
  const isa::Layout& layout_;
  const isa::Platform& platform_;
  std::string ir_;
};

}  // namespace

py::object build_accel(const PySchedule& s, BuildArgs a, const std::string& name,
                       const std::string& config, const std::string& platform) {
  const isa::Layout& layout = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform(platform);
  std::string ir;
  rt::ScheduleProgram prog;
  {
    py::gil_scoped_release release;
    prog = rt::build_schedule_program(layout, *s.s, a.all,
                                      [&ir](const std::string& pass, const ir::Stmt& result) {
                                        ir += "// after " + pass + "\n" + ir::to_string(result);
                                      });
  }
  return py::cast(std::make_unique<AccelModule>(std::move(prog), std::move(a), name, layout, p,
                                                std::move(ir)));
}

void bind_accel(py::module_& m) {
  py::class_<AccelModule>(m, "AccelModule",
                          "A schedule built for the accelerator (weft.build(target='accel')).")
      .def("run", &AccelModule::run, py::arg("engine") = "cycle", py::arg("trace") = py::none(),
           py::arg("timeout") = 3600.0, py::arg("xclbin") = "", py::arg("xrt_emulate") = "",
           "Runs on NumPy arrays (one per argument tensor; outputs written in place) on an "
           "engine: {'stats': the run's statistics, 'timeline': the cycle engine's or None}.")
      .def_property_readonly("name", &AccelModule::name)
      .def_property_readonly("config", &AccelModule::config)
      .def("ir", &AccelModule::ir, "The IR after every accelerator pass.")
      .def("asm", &AccelModule::asm_listing, "The instruction listing (weft compile --emit asm).")
      .def("program", &AccelModule::program, "The accelerator program, one operation a line.")
      .def("image", &AccelModule::image,
           "(image bytes with zeroed tensors, instruction count, {tensor: byte address}).");
}

}  // namespace weft::py_bind
