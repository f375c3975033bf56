// The CPU backend's CLI options and verbs; see cpu_target.h.
#include "runtime/cli/cpu_target.h"

#include <iostream>
#include <memory>

#include "hardware/isa/errors.h"
#ifdef WEFT_HAVE_CPU_BACKEND
#include "runtime/cpu/run_op.h"
#include "runtime/io/files.h"
#endif

namespace weft::cli {

namespace {

#ifdef WEFT_HAVE_CPU_BACKEND
rt::cpu::CpuRunRequest request(const CpuTargetOptions& o, const std::string& op) {
  rt::cpu::CpuRunRequest r;
  r.op = op;
  r.dtype = o.dtype.empty() ? "float32" : o.dtype;
  r.threads = o.threads;
  r.repeats = o.repeats;
  return r;
}

void run_and_print(const rt::cpu::CpuRunRequest& r) {
  rt::OutputSet outputs;
  const nlohmann::ordered_json j = rt::cpu::run_cpu_op(r, outputs);
  outputs.commit();
  std::cout << j.dump(2) << "\n";
  if (!j["correct"].get<bool>()) {
    throw UserError("the " + r.op + " output differs from the scalar reference in " +
                    std::to_string(j["mismatches"].get<int64_t>()) + " elements (max error " +
                    std::to_string(j["max_abs_error"].get<double>()) + ")");
  }
}
#else
[[noreturn]] void not_built() {
  throw UserError(
      "this weft was built without the CPU backend: install LLVM 16 (sudo apt-get install "
      "llvm-16-dev libzstd-dev) and configure with -DWEFT_CPU_BACKEND=ON");
}
#endif

struct ConvOptions {
  CpuTargetOptions cpu;
  std::string layer;
  int64_t n = 1, c = 0, h = 0, w = 0, o = 0, k = 0, stride = 1, pad = 0;
  uint32_t seed = 1;
  std::string save;

#ifdef WEFT_HAVE_CPU_BACKEND
  rt::cpu::CpuRunRequest to_request() const {
    rt::cpu::CpuRunRequest r = request(cpu, "conv2d");
    if (!layer.empty()) {
      r.conv = rt::cpu::resnet18_layer(layer);
      r.conv.n = n;
    } else {
      if (c == 0 || h == 0 || w == 0 || o == 0 || k == 0)
        throw UserError("conv2d needs --layer, or all of --C --H --W --O --kernel");
      r.conv = rt::cpu::Conv2dShape{n, c, h, w, o, k, k, stride, pad};
    }
    r.seed = seed;
    r.save_dir = save;
    return r;
  }
#endif
};

}  // namespace

void CpuTargetOptions::add_to(CLI::App& cmd, bool run) {
  cmd.add_option("--target", target, "accel (the accelerator) or llvm (the host CPU)")
      ->capture_default_str();
  cmd.add_option("--dtype", dtype,
                 "element type: int8 (accel; on llvm int8 inputs, int32 outputs) or float32 "
                 "(llvm, its default)");
  if (run) {
    cmd.add_option("--threads", threads, "llvm: threads of the CPU thread pool")
        ->capture_default_str();
    cmd.add_option("--repeats", repeats, "llvm: timed runs (the median is reported)")
        ->capture_default_str();
  }
}

bool CpuTargetOptions::is_llvm() const {
  if (target == "llvm") {
    if (!dtype.empty() && dtype != "float32" && dtype != "int8")
      throw UserError("--dtype: unknown dtype '" + dtype + "' (float32 or int8)");
    return true;
  }
  if (target != "accel") throw UserError("--target must be accel or llvm, not '" + target + "'");
  if (!dtype.empty() && dtype != "int8") {
    throw UserError("--dtype " + dtype +
                    ": the accelerator computes int8 only (use --target llvm)");
  }
  return false;
}

void run_dense_on_cpu(const CpuTargetOptions& o, int64_t m, int64_t n, int64_t k, uint32_t seed,
                      const std::string& save) {
#ifdef WEFT_HAVE_CPU_BACKEND
  rt::cpu::CpuRunRequest r = request(o, "dense");
  r.m = m;
  r.n = n;
  r.k = k;
  r.seed = seed;
  r.save_dir = save;
  run_and_print(r);
#else
  not_built();
#endif
}

void print_dense_llvm(const CpuTargetOptions& o, int64_t m, int64_t n, int64_t k) {
#ifdef WEFT_HAVE_CPU_BACKEND
  rt::cpu::CpuRunRequest r = request(o, "dense");
  r.m = m;
  r.n = n;
  r.k = k;
  std::cout << rt::cpu::cpu_op_llvm_ir(r);
#else
  not_built();
#endif
}

void run_conv2d_on_cpu(const CpuTargetOptions& cpu, const std::string& layer, int64_t n, int64_t ic,
                       int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                       uint32_t seed, const std::string& save) {
#ifdef WEFT_HAVE_CPU_BACKEND
  ConvOptions o;
  o.cpu = cpu;
  o.layer = layer;
  o.n = n;
  o.c = ic;
  o.h = h;
  o.w = w;
  o.o = oc;
  o.k = k;
  o.stride = stride;
  o.pad = pad;
  o.seed = seed;
  o.save = save;
  run_and_print(o.to_request());
#else
  not_built();
#endif
}

void print_conv2d_llvm(const CpuTargetOptions& cpu, const std::string& layer, int64_t n,
                       int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride,
                       int64_t pad) {
#ifdef WEFT_HAVE_CPU_BACKEND
  ConvOptions o;
  o.cpu = cpu;
  o.layer = layer;
  o.n = n;
  o.c = ic;
  o.h = h;
  o.w = w;
  o.o = oc;
  o.k = k;
  o.stride = stride;
  o.pad = pad;
  std::cout << rt::cpu::cpu_op_llvm_ir(o.to_request());
#else
  not_built();
#endif
}

}  // namespace weft::cli
