// weft.lower and weft.build: a schedule and its argument tensors as loop IR text (for the LLVM
// target: the function the CPU code generator takes; for the accelerator: the IR after every
// pass of compiler/pipeline.h), and as a callable module that runs the LLVM JIT's kernel
// (runtime/cpu/executor.h) on NumPy arrays, with the GIL released while it runs.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <mutex>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/ops/lowered_op.h"
#include "compiler/pipeline.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/cpu/executor.h"

namespace weft::py_bind {

namespace {

// A schedule's arguments: the placeholders (inputs) and computed tensors (outputs) in the
// caller's order, each with its position among the kernel's buffers (inputs first).
struct Args {
  std::vector<te::Tensor> inputs, outputs, all;
  std::vector<size_t> slot;  // all[i] is kernel buffer slot[i]
};

Args split_args(const PySchedule& s, const py::sequence& args) {
  Args a;
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
  CpuModule(std::unique_ptr<rt::cpu::CpuKernel> k, Args a, int threads, std::string ir)
      : kernel_(std::move(k)), args_(std::move(a)), ir_(std::move(ir)) {
    if (threads > 1) pool_ = std::make_unique<rt::cpu::ThreadPool>(threads);
  }

  void call(const py::args& arrays) {
    const size_t n = args_.all.size();
    if (arrays.size() != n)
      throw UserError("'" + name() + "' takes " + std::to_string(n) + " arrays (" + arg_names() +
                      "), given " + std::to_string(arrays.size()));
    std::vector<void*> buffers(n);
    for (size_t i = 0; i < n; ++i) buffers[args_.slot[i]] = checked(arrays[i], i);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);  // the kernel's workspaces are shared
    kernel_->run(buffers, pool_.get());
  }
  std::string name() const { return kernel_->op().func.name; }
  const std::string& ir() const { return ir_; }
  const std::string& llvm_ir() const { return kernel_->llvm_ir(); }

 private:
  std::string arg_names() const {
    std::string s;
    for (const te::Tensor& t : args_.all) s += (s.empty() ? "" : ", ") + t->name;
    return s;
  }
  // The data of argument i: a C-contiguous array of the tensor's dtype and shape (writable
  // for an output).
  void* checked(py::handle h, size_t i) const {
    const te::Tensor& t = args_.all[i];
    const std::string where = "'" + name() + "' argument " + std::to_string(i) + " (" + t->name + ")";
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

  std::unique_ptr<rt::cpu::CpuKernel> kernel_;
  Args args_;
  std::string ir_;
  std::unique_ptr<rt::cpu::ThreadPool> pool_;
  std::mutex mu_;
};

void check_target(const std::string& target, const char* what) {
  if (target == "llvm") return;
  if (target == "cuda" || target == "accel")
    throw UserError(std::string(what) + ": target '" + target +
                    "' is not bound in Python yet (docs/python.md lists what is); use "
                    "target=\"llvm\", or the weft CLI");
  throw UserError(std::string(what) + ": unknown target '" + target + "' (llvm, accel, cuda)");
}

}  // namespace

void bind_build(py::module_& m) {
  m.def("lower",
        [](const PySchedule& s, const py::sequence& args, const std::string& name,
           const std::string& target, const std::string& config) -> std::string {
          if (target == "accel") {
            // The accelerator pipeline's IR after each pass (its program is not bound yet).
            std::string text;
            compiler::compile_accel(*s.s, isa::layout_for(config),
                                    [&text](const std::string& pass, const ir::Stmt& result) {
                                      text += "// after " + pass + "\n" + ir::to_string(result);
                                    });
            return text;
          }
          check_target(target, "lower");
          const Args a = split_args(s, args);
          compiler::codegen::LoweredFunc f =
              compiler::codegen::lower_func(name, *s.s, a.inputs, a.outputs);
          return signature(name, f.args) + ir::to_string(f.body);
        },
        py::arg("schedule"), py::arg("args"), py::arg("name") = "default_function",
        py::arg("target") = "llvm", py::arg("config") = "gemm8x8",
        "The loop IR of a schedule as text: for target='llvm' the function the CPU code "
        "generator compiles; for target='accel' the IR after every accelerator pass.");

  py::class_<CpuModule>(m, "CpuModule", "A function built for the host CPU (weft.build).")
      .def("__call__", &CpuModule::call,
           "Runs on NumPy arrays, one per argument tensor, in the order given to build; "
           "outputs are written in place.")
      .def_property_readonly("name", &CpuModule::name)
      .def("ir", &CpuModule::ir, "The loop IR that was compiled.")
      .def("llvm_ir", &CpuModule::llvm_ir, "The optimized LLVM IR.");

  m.def("build",
        [](const PySchedule& s, const py::sequence& args, const std::string& target,
           const std::string& name, int threads) {
          check_target(target, "build");
          if (threads < 1 || threads > 1024)
            throw UserError("build: threads " + std::to_string(threads) + " is out of range (1 to 1024)");
          Args a = split_args(s, args);
          compiler::ops::LoweredOp op = compiler::ops::lower_op(name, *s.s, a.inputs, a.outputs);
          const std::string text = signature(name, op.func.args) + ir::to_string(op.func.body);
          std::unique_ptr<rt::cpu::CpuKernel> k;
          {
            py::gil_scoped_release release;
            k = std::make_unique<rt::cpu::CpuKernel>(std::move(op));
          }
          return std::make_unique<CpuModule>(std::move(k), std::move(a), threads, text);
        },
        py::arg("schedule"), py::arg("args"), py::arg("target") = "llvm",
        py::arg("name") = "default_function", py::arg("threads") = 1,
        "Compiles a schedule for target='llvm' (the host CPU, LLVM JIT) into a callable.");
}

}  // namespace weft::py_bind
