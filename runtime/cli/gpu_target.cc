// The GPU backend's CLI verbs; see gpu_target.h.
#include "runtime/cli/gpu_target.h"

#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/cli/conv2d_options.h"
#include "runtime/gpu/run_op.h"
#ifdef WEFT_HAVE_CUDA
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/nvrtc_emit.h"
#endif

namespace weft::cli {

namespace {

rt::gpu::GpuRunRequest request(const CpuTargetOptions& o, const std::string& op) {
  rt::gpu::GpuRunRequest r;
  r.op = op;
  r.dtype = o.dtype.empty() ? "float32" : o.dtype;
  r.path = o.gpu_path;
  r.repeats = o.repeats;
  return r;
}

rt::gpu::GpuRunRequest conv_request(const CpuTargetOptions& o, const std::string& layer,
                                    int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc,
                                    int64_t k, int64_t stride, int64_t pad) {
  rt::gpu::GpuRunRequest r = request(o, "conv2d");
  const compiler::ops::Conv2dShape s = conv2d_shape(layer, n, h, w, c, oc, k, stride, pad);
  r.conv = rt::gpu::Conv2dShape{s.n, s.ic, s.h, s.w, s.oc, s.k, s.k, s.stride, s.pad};
  return r;
}

#ifndef WEFT_HAVE_CUDA
[[noreturn]] void no_toolkit(const char* what) {
  throw UserError(std::string("this weft was built without the CUDA toolkit, so it cannot ") +
                  what + ": install CUDA (NVRTC) in /usr/local/cuda and reconfigure; "
                  "`--emit cuda` works without it");
}
#endif

void run_and_print(const rt::gpu::GpuRunRequest& r, uint32_t seed, const std::string& save) {
#ifdef WEFT_HAVE_CUDA
  rt::gpu::GpuRunRequest q = r;
  q.seed = seed;
  q.save_dir = save;
  rt::OutputSet outputs;
  const nlohmann::ordered_json j = rt::gpu::run_gpu_op(q, outputs);
  outputs.commit();
  std::cout << j.dump(2) << "\n";
  if (!j["correct"].get<bool>()) {
    throw UserError("the " + r.op + " output differs from the CPU reference in " +
                    std::to_string(j["mismatches"].get<int64_t>()) + " elements (max error " +
                    std::to_string(j["max_abs_error"].get<double>()) + ")");
  }
#else
  (void)r;
  (void)seed;
  (void)save;
  no_toolkit("run on a GPU");
#endif
}

void print(const CpuTargetOptions& o, const std::string& emit, const rt::gpu::GpuRunRequest& r) {
  if (emit == "cuda") {
    std::cout << rt::gpu::gpu_op_cuda(r);
    return;
  }
  if (emit != "ptx") throw UserError("--emit with --target cuda is cuda or ptx, not '" + emit + "'");
#ifdef WEFT_HAVE_CUDA
  std::string arch = o.arch;
  if (arch.empty()) {
    arch = rt::gpu::Gpu::unavailable().empty() ? rt::gpu::Gpu::get().arch() : "sm_75";
  }
  std::cout << rt::gpu::gpu_op_ptx(r, arch);
#else
  (void)o;
  no_toolkit("emit PTX (NVRTC)");
#endif
}

}  // namespace

void run_dense_on_gpu(const CpuTargetOptions& o, int64_t m, int64_t n, int64_t k, uint32_t seed,
                      const std::string& save) {
  rt::gpu::GpuRunRequest r = request(o, "dense");
  r.m = m;
  r.n = n;
  r.k = k;
  run_and_print(r, seed, save);
}

void run_conv2d_on_gpu(const CpuTargetOptions& o, const std::string& layer, int64_t n,
                       int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride,
                       int64_t pad, uint32_t seed, const std::string& save) {
  run_and_print(conv_request(o, layer, n, ic, h, w, oc, k, stride, pad), seed, save);
}

void print_dense_gpu(const CpuTargetOptions& o, const std::string& emit, int64_t m, int64_t n,
                     int64_t k) {
  rt::gpu::GpuRunRequest r = request(o, "dense");
  r.m = m;
  r.n = n;
  r.k = k;
  print(o, emit, r);
}

void print_conv2d_gpu(const CpuTargetOptions& o, const std::string& emit,
                      const std::string& layer, int64_t n, int64_t ic, int64_t h, int64_t w,
                      int64_t oc, int64_t k, int64_t stride, int64_t pad) {
  print(o, emit, conv_request(o, layer, n, ic, h, w, oc, k, stride, pad));
}

}  // namespace weft::cli
