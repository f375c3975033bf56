// weft.build(..., target="cuda") and weft.lower(..., target="cuda"): a schedule for a GPU
// (threads bound with Stage.bind), its CUDA C from the code generator (no GPU needed), and a
// module that runs it through the GPU backend's runtime (runtime/gpu/gpu_target.h: NVRTC and
// the CUDA driver) on NumPy arrays. Without a GPU, or a build without the CUDA toolkit,
// building is the runtime's UserError saying which is missing.
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/ops/lowered_op.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/gpu/gpu_target.h"

namespace weft::py_bind {

namespace {

class GpuModule {
 public:
  GpuModule(std::unique_ptr<rt::TargetKernel> k, BuildArgs a, std::string name, std::string cuda)
      : kernel_(std::move(k)), args_(std::move(a)), name_(std::move(name)), cuda_(std::move(cuda)) {}

  void call(const py::args& arrays) {
    const std::vector<void*> data = args_.arrays(arrays, name_);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);  // one set of device buffers
    for (size_t i = 0; i < data.size(); ++i) {
      if (!args_.all[i]->is_placeholder) continue;
      const auto* p = static_cast<const uint8_t*>(data[i]);
      kernel_->write(args_.slot[i], std::vector<uint8_t>(p, p + bytes(i)));
    }
    kernel_->run();
    for (size_t i = 0; i < data.size(); ++i) {
      if (args_.all[i]->is_placeholder) continue;
      const std::vector<uint8_t> out = kernel_->read(args_.slot[i]);
      if (out.size() != bytes(i)) throw InternalError("GPU output has the wrong size");
      std::memcpy(data[i], out.data(), out.size());
    }
  }
  const std::string& name() const { return name_; }
  const std::string& cuda() const { return cuda_; }

 private:
  size_t bytes(size_t i) const {
    const te::Tensor& t = args_.all[i];
    return static_cast<size_t>(t->buffer->elements()) * size_t(ir::dtype_bits(t->dtype) / 8);
  }
  std::unique_ptr<rt::TargetKernel> kernel_;
  BuildArgs args_;
  std::string name_, cuda_;
  std::mutex mu_;
};

}  // namespace

std::string cuda_source(const PySchedule& s, const BuildArgs& a, const std::string& name) {
  const compiler::ops::LoweredOp op = compiler::ops::lower_op(name, *s.s, a.inputs, a.outputs);
  return compiler::codegen::codegen_cuda(op.func).source;
}

py::object build_cuda(const PySchedule& s, BuildArgs a, const std::string& name) {
  rt::TargetOp op;
  op.op = compiler::ops::lower_op(name, *s.s, a.inputs, a.outputs);
  const std::string cuda = compiler::codegen::codegen_cuda(op.op.func).source;
  std::unique_ptr<rt::TargetKernel> k;
  try {
    py::gil_scoped_release release;
    k = rt::gpu::GpuTarget().compile(op);
  } catch (const UserError& e) {
    throw UserError(std::string("build: target 'cuda': ") + e.what());
  }
  return py::cast(std::make_unique<GpuModule>(std::move(k), std::move(a), name, cuda));
}

void bind_gpu(py::module_& m) {
  py::class_<GpuModule>(m, "GpuModule", "A function built for a GPU (weft.build(target='cuda')).")
      .def("__call__", &GpuModule::call,
           "Runs on NumPy arrays, one per argument tensor, in the order given to build; "
           "outputs are written in place.")
      .def_property_readonly("name", &GpuModule::name)
      .def("cuda", &GpuModule::cuda, "The generated CUDA C.");
}

}  // namespace weft::py_bind
