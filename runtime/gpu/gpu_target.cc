// An NVIDIA GPU as a Target; see gpu_target.h. Built with or without the CUDA toolkit
// (WEFT_HAVE_CUDA): without it, building and `--emit cuda` work and the rest says what is
// missing.
#include "runtime/gpu/gpu_target.h"

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"
#include "runtime/target/host_values.h"
#ifdef WEFT_HAVE_CUDA
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/executor.h"
#include "runtime/gpu/nvrtc_compiler.h"
#endif

namespace weft::rt::gpu {

namespace ops = compiler::ops;
using compiler::ir::DType;

namespace {

#ifdef WEFT_HAVE_CUDA
// A compiled GPU operator with device buffers for its arguments.
class GpuTargetKernel : public TargetKernel {
 public:
  explicit GpuTargetKernel(const ops::LoweredOp& op) : kernel_(op) {
    for (size_t i = 0; i < op.num_inputs + op.num_outputs; ++i) {
      const auto& b = op.func.args[i];
      buffers_.emplace_back(static_cast<size_t>(b->elements()) * dtype_bytes(b->dtype));
      ptrs_.push_back(buffers_.back().ptr());
    }
  }
  void write(size_t arg, const std::vector<uint8_t>& bytes) override {
    Gpu::get().upload(ptrs_.at(arg), bytes.data(), bytes.size());
  }
  std::vector<uint8_t> read(size_t arg) override {
    std::vector<uint8_t> b(buffers_.at(arg).bytes());
    Gpu::get().download(b.data(), ptrs_[arg], b.size());
    return b;
  }
  void run() override {
    kernel_.run(ptrs_);
    Gpu::get().synchronize();
  }
  double timed_run() override {
    return Gpu::get().time_ms([&] { kernel_.run(ptrs_); }) / 1e3;
  }
  void describe(nlohmann::ordered_json& j) const override {
    j["kernels"] = kernel_.module().kernels.size();
  }

 private:
  GpuKernel kernel_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<uint64_t> ptrs_;
};
#else
[[noreturn]] void no_toolkit(const char* what) {
  throw UserError(std::string("this weft was built without the CUDA toolkit, so it cannot ") +
                  what +
                  ": install CUDA (NVRTC) in /usr/local/cuda and reconfigure; "
                  "`--emit cuda` works without it");
}
#endif

}  // namespace

GpuTarget::GpuTarget(std::string path, std::string arch)
    : path_(std::move(path)), arch_(std::move(arch)) {}

TargetOp GpuTarget::build(const OpRequest& r) const {
  const DType dt =
      ops::parse_dtype(r.dtype, "--dtype", {DType::kFloat32, DType::kFloat16, DType::kInt8});
  ops::gpu::GemmSchedule s;
  s.path = ops::gpu::parse_gemm_path(path_, "--gpu-path");
  TargetOp t;
  if (r.op == "dense") {
    t.op = ops::gpu::dense(r.m, r.n, r.k, dt, s);
  } else if (r.op == "conv2d") {
    t.op = ops::gpu::conv2d(r.conv, dt, s);
  } else {
    throw UserError("the GPU backend has no operator '" + r.op +
                    "' for weft run (dense or conv2d)");
  }
  const DType out = t.op.func.args[t.op.num_inputs]->dtype;
  t.pack = [dt](size_t, const std::vector<double>& v) { return to_bytes(v, dt); };
  t.unpack = [out](const std::vector<uint8_t>& b) { return from_bytes(b, out); };
  return t;
}

void GpuTarget::describe(const TargetOp& op, nlohmann::ordered_json& j) const {
#ifdef WEFT_HAVE_CUDA
  Gpu& gpu = Gpu::get();
  j["path"] = op.op.path;
  j["device"] = gpu.name();
  j["arch"] = gpu.arch();
#else
  (void)op;
  (void)j;
  no_toolkit("run on a GPU");
#endif
}

std::unique_ptr<TargetKernel> GpuTarget::compile(const TargetOp& op) const {
#ifdef WEFT_HAVE_CUDA
  return std::make_unique<GpuTargetKernel>(op.op);
#else
  (void)op;
  no_toolkit("run on a GPU");
#endif
}

std::string GpuTarget::emit(const OpRequest& r, const std::string& emit) const {
  if (emit != "cuda" && emit != "ptx")
    throw UserError("--emit with --target cuda is cuda or ptx, not '" + emit + "'");
  const std::string cuda = compiler::codegen::codegen_cuda(build(r).op.func).source;
  if (emit == "cuda") return cuda;
#ifdef WEFT_HAVE_CUDA
  std::string arch = arch_;
  if (arch.empty()) arch = Gpu::unavailable().empty() ? Gpu::get().arch() : "sm_75";
  return nvrtc_compile(cuda, arch, Emit::kPtx);
#else
  no_toolkit("emit PTX (NVRTC)");
#endif
}

std::pair<std::string, double> GpuTarget::throughput(bool int8) const {
  return {int8 ? "tops" : "tflops", 1e12};
}

}  // namespace weft::rt::gpu
