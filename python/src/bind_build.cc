// weft.lower and weft.build: a schedule and its argument tensors as text (for the LLVM target:
// the loop IR the CPU code generator takes; for the accelerator: the IR after every pass of
// compiler/pipeline.h; for CUDA: the generated CUDA C), and as a callable module: here the one
// that runs the LLVM JIT's kernel (runtime/cpu/executor.h) on NumPy arrays with the GIL
// released; the accelerator's and the GPU's are in bind_accel.cc and bind_gpu.cc.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/ops/lowered_op.h"
#include "compiler/pipeline.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/cpu/executor.h"

namespace weft::py_bind {

BuildArgs split_args(const PySchedule& s, const py::sequence& args) {
  BuildArgs a;
  std::set<const te::TensorObj*> seen, computed;
  for (const te::Tensor& t : s.s->order()) computed.insert(t.get());
  for (py::handle h : args) {
    if (!py::isinstance<PyTensor>(h))
      throw UserError("args: expected te tensors, got " +
                      std::string(py::str(py::type::of(h).attr("__name__"))));
    const te::Tensor t = h.cast<const PyTensor&>().t;
    if (!seen.insert(t.get()).second)
      throw UserError("args: tensor '" + t->name + "' is listed twice");
    if (!t->is_placeholder && !computed.count(t.get()))
      throw UserError("args: '" + t->name + "' is not computed by this schedule");
    a.all.push_back(t);
    (t->is_placeholder ? a.inputs : a.outputs).push_back(t);
  }
  if (a.outputs.empty()) throw UserError("args: list at least one computed tensor (an output)");
  size_t in = 0, out = a.inputs.size();
  for (const te::Tensor& t : a.all) a.slot.push_back(t->is_placeholder ? in++ : out++);
  // A placeholder the schedule reads but the caller did not pass would become a workspace
  // (uninitialised memory): refuse it by name.
  for (const te::Tensor& t : s.s->order()) {
    for (const te::Tensor& i : t->inputs) {
      if (i->is_placeholder && !seen.count(i.get()))
        throw UserError("args: placeholder '" + i->name + "' is read by '" + t->name +
                        "' but not listed");
    }
  }
  return a;
}

void* tensor_array(py::handle h, const te::Tensor& t, const std::string& where) {
  if (!py::isinstance<py::array>(h))
    throw UserError(where + ": expected a numpy.ndarray, got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(h);
  const std::string dtype = py::str(a.dtype());
  if (dtype != ir::dtype_name(t->dtype))
    throw UserError(where + ": dtype " + dtype + ", expected " + ir::dtype_name(t->dtype));
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  if (shape != t->shape) {
    std::string got, want;
    for (int64_t d : shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
    for (int64_t d : t->shape) want += (want.empty() ? "" : ", ") + std::to_string(d);
    throw UserError(where + ": shape (" + got + "), expected (" + want + ")");
  }
  if (!(a.flags() & py::array::c_style))
    throw UserError(where + ": the array is not C-contiguous (use numpy.ascontiguousarray)");
  if (!t->is_placeholder && !a.writeable())
    throw UserError(where + ": the output array is read-only");
  return const_cast<void*>(a.data());
}

std::vector<void*> BuildArgs::arrays(const py::args& arrays, const std::string& func) const {
  const size_t n = all.size();
  if (arrays.size() != n) {
    std::string names;
    for (const te::Tensor& t : all) names += (names.empty() ? "" : ", ") + t->name;
    throw UserError("'" + func + "' takes " + std::to_string(n) + " arrays (" + names +
                    "), given " + std::to_string(arrays.size()));
  }
  std::vector<void*> data;
  for (size_t i = 0; i < n; ++i)
    data.push_back(tensor_array(arrays[i], all[i],
                                "'" + func + "' argument " + std::to_string(i) + " (" +
                                    all[i]->name + ")"));
  return data;
}

namespace {

std::string signature(const std::string& name, const std::vector<ir::Buffer>& args) {
  std::string s = "func " + name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    s += (i ? ", " : "") + args[i]->name + ": " + ir::dtype_name(args[i]->dtype) + "[";
    for (size_t d = 0; d < args[i]->shape.size(); ++d)
      s += (d ? ", " : "") + std::to_string(args[i]->shape[d]);
    s += "]";
  }
  return s + ")\n";
}

// A built CPU function over NumPy arrays.
class CpuModule {
 public:
  CpuModule(std::unique_ptr<rt::cpu::CpuKernel> k, BuildArgs a, int threads, std::string ir)
      : kernel_(std::move(k)), args_(std::move(a)), ir_(std::move(ir)) {
    if (threads > 1) pool_ = std::make_unique<rt::cpu::ThreadPool>(threads);
  }

  void call(const py::args& arrays) {
    const std::vector<void*> data = args_.arrays(arrays, name());
    std::vector<void*> buffers(data.size());
    for (size_t i = 0; i < data.size(); ++i) buffers[args_.slot[i]] = data[i];
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);  // the kernel's workspaces are shared
    kernel_->run(buffers, pool_.get());
  }
  std::string name() const { return kernel_->op().func.name; }
  const std::string& ir() const { return ir_; }
  const std::string& llvm_ir() const { return kernel_->llvm_ir(); }

 private:
  std::unique_ptr<rt::cpu::CpuKernel> kernel_;
  BuildArgs args_;
  std::string ir_;
  std::unique_ptr<rt::cpu::ThreadPool> pool_;
  std::mutex mu_;
};

void check_target(const std::string& target, const char* what) {
  if (target != "llvm" && target != "accel" && target != "cuda")
    throw UserError(std::string(what) + ": unknown target '" + target + "' (llvm, accel, cuda)");
}

// UserError for an option given with a target it does not go with.
void forbid(bool given, const char* option, const std::string& target, const char* with) {
  if (given)
    throw UserError(std::string("build: ") + option + " goes with " + with + ", not target='" +
                    target + "'");
}

}  // namespace

void bind_build(py::module_& m) {
  m.def("lower",
        [](const PySchedule& s, const py::sequence& args, const std::string& name,
           const std::string& target, const std::string& config,
           std::optional<std::string> pass) -> std::string {
          check_target(target, "lower");
          if (pass && target != "accel")
            throw UserError("lower: pass goes with target='accel' (the accelerator's passes)");
          if (target == "accel") {
            // The accelerator pipeline's IR after each pass, or after the one asked for.
            const auto& names = compiler::accel_pass_names();
            if (pass && std::find(names.begin(), names.end(), *pass) == names.end()) {
              std::string all;
              for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
              throw UserError("lower: pass '" + *pass + "' is not a pass of the pipeline (" + all + ")");
            }
            std::string text;
            compiler::compile_accel(*s.s, isa::layout_for(config),
                                    [&](const std::string& name, const ir::Stmt& result) {
                                      if (pass && name != *pass) return;
                                      text += (pass ? "" : "// after " + name + "\n") +
                                              ir::to_string(result);
                                    });
            return text;
          }
          const BuildArgs a = split_args(s, args);
          if (target == "cuda") return cuda_source(s, a, name);
          compiler::codegen::LoweredFunc f =
              compiler::codegen::lower_func(name, *s.s, a.inputs, a.outputs);
          return signature(name, f.args) + ir::to_string(f.body);
        },
        py::arg("schedule"), py::arg("args"), py::arg("name") = "default_function",
        py::arg("target") = "llvm", py::arg("config") = "gemm8x8", py::arg("pass_") = py::none(),
        "A schedule lowered, as text: for target='llvm' the loop IR the CPU code generator "
        "compiles; for target='accel' the IR after every accelerator pass (or after pass_ "
        "alone); for target='cuda' the CUDA C of the GPU code generator.");

  py::class_<CpuModule>(m, "CpuModule", "A function built for the host CPU (weft.build).")
      .def("__call__", &CpuModule::call,
           "Runs on NumPy arrays, one per argument tensor, in the order given to build; "
           "outputs are written in place.")
      .def_property_readonly("name", &CpuModule::name)
      .def("ir", &CpuModule::ir, "The loop IR that was compiled.")
      .def("llvm_ir", &CpuModule::llvm_ir, "The optimized LLVM IR.");

  m.def("build",
        [](const PySchedule& s, const py::sequence& args, const std::string& target,
           const std::string& name, std::optional<int> threads,
           std::optional<std::string> config, std::optional<std::string> platform) -> py::object {
          check_target(target, "build");
          forbid(threads && target != "llvm", "threads", target, "target='llvm'");
          forbid(config && target != "accel", "config", target, "target='accel'");
          forbid(platform && target != "accel", "platform", target, "target='accel'");
          BuildArgs a = split_args(s, args);
          if (target == "accel")
            return build_accel(s, std::move(a), name, config.value_or("gemm8x8"),
                               platform.value_or("sim"));
          if (target == "cuda") return build_cuda(s, std::move(a), name);
          const int t = threads.value_or(1);
          if (t < 1 || t > 1024)
            throw UserError("build: threads " + std::to_string(t) + " is out of range (1 to 1024)");
          compiler::ops::LoweredOp op = compiler::ops::lower_op(name, *s.s, a.inputs, a.outputs);
          const std::string text = signature(name, op.func.args) + ir::to_string(op.func.body);
          std::unique_ptr<rt::cpu::CpuKernel> k;
          {
            py::gil_scoped_release release;
            k = std::make_unique<rt::cpu::CpuKernel>(std::move(op));
          }
          return py::cast(std::make_unique<CpuModule>(std::move(k), std::move(a), t, text));
        },
        py::arg("schedule"), py::arg("args"), py::arg("target") = "llvm",
        py::arg("name") = "default_function", py::arg("threads") = py::none(),
        py::arg("config") = py::none(), py::arg("platform") = py::none(),
        "Compiles a schedule into a callable: target='llvm' (the host CPU, LLVM JIT; threads), "
        "'accel' (the accelerator's engines; config, platform) or 'cuda' (a GPU).");
}

}  // namespace weft::py_bind
