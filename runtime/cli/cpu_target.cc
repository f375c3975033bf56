// The CPU backend's CLI options and verbs; see cpu_target.h.
#include "runtime/cli/cpu_target.h"

#include <iostream>
#include <memory>

#include "hardware/isa/errors.h"
#include "runtime/cli/conv2d_options.h"
#ifdef WEFT_HAVE_CPU_BACKEND
#include "runtime/cpu/run_op.h"
#include "runtime/io/files.h"
#include "runtime/tune/cpu_schedules.h"
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

// The best tuned schedule for the request's operator on this host: from --tune-db when it has
// one, else from the shipped default records; none: the default schedule.
void use_tuned(const CpuTargetOptions& o, rt::cpu::CpuRunRequest& r) {
  if (o.no_tuned) {
    r.schedule_info = {{"source", "default schedule (--no-records)"}};
    return;
  }
  if (r.op == "dense") {
    if (auto t = rt::tune::tuned_dense(r.m, r.n, r.k, r.dtype, o.tune_db)) {
      r.dense_schedule = t->schedule;
      r.schedule_info = rt::tune::knobs_of(t->schedule);
      r.schedule_info["source"] = t->source;
      return;
    }
  } else if (r.op == "conv2d") {
    if (auto t = rt::tune::tuned_conv2d(r.conv, r.dtype, o.tune_db)) {
      r.conv_schedule = t->schedule;
      r.schedule_info = rt::tune::knobs_of(t->schedule);
      r.schedule_info["source"] = t->source;
      return;
    }
  }
  r.schedule_info = {{"source", "default schedule (no tuning record for this shape and host)"}};
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

#ifdef WEFT_HAVE_CPU_BACKEND
// The CPU run request of a conv2d: a ResNet-18 layer (with batch `n`) or the given shape.
rt::cpu::CpuRunRequest conv_request(const CpuTargetOptions& cpu, const std::string& layer,
                                    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                                    int64_t k, int64_t stride, int64_t pad) {
  rt::cpu::CpuRunRequest r = request(cpu, "conv2d");
  const compiler::ops::Conv2dShape s = conv2d_shape(layer, n, h, w, c, o, k, stride, pad);
  r.conv = rt::cpu::Conv2dShape{s.n, s.ic, s.h, s.w, s.oc, s.k, s.k, s.stride, s.pad};
  return r;
}
#endif

}  // namespace

void CpuTargetOptions::add_to(CLI::App& cmd, bool run) {
  cmd.add_option("--target", target,
                 "accel (the accelerator), llvm (the host CPU) or cuda (an NVIDIA GPU)")
      ->capture_default_str();
  cmd.add_option("--dtype", dtype,
                 "element type: int8 (accel; on llvm and cuda int8 inputs, int32 outputs), "
                 "float32 (llvm and cuda, their default) or float16 (cuda: tensor cores, "
                 "float32 accumulation and output)");
  cmd.add_option("--gpu-path", gpu_path,
                 "cuda: how dense/conv2d run: auto, simt (float32), tensor-core (float16, int8) "
                 "or dp4a (int8)")
      ->capture_default_str();
  if (!run) {
    cmd.add_option("--arch", arch,
                   "cuda --emit ptx: the GPU architecture, sm_75 .. sm_90 (default: the GPU's, "
                   "else sm_75)");
  }
  if (run) {
    cmd.add_option("--threads", threads, "llvm: threads of the CPU thread pool")
        ->capture_default_str();
    cmd.add_option("--repeats", repeats, "llvm: timed runs (the median is reported)")
        ->capture_default_str();
  }
}

bool CpuTargetOptions::is_cuda() const {
  if (target != "cuda") return false;
  if (!dtype.empty() && dtype != "float32" && dtype != "float16" && dtype != "int8")
    throw UserError("--dtype: unknown dtype '" + dtype + "' (float32, float16 or int8)");
  return true;
}

bool CpuTargetOptions::is_llvm() const {
  if (target == "cuda") return false;
  if (target == "llvm") {
    if (!dtype.empty() && dtype != "float32" && dtype != "int8")
      throw UserError("--dtype: unknown dtype '" + dtype + "' (float32 or int8)");
    return true;
  }
  if (target != "accel") {
    throw UserError("--target must be accel, llvm or cuda, not '" + target + "'");
  }
  if (!dtype.empty() && dtype != "int8") {
    if (dtype != "float32" && dtype != "float16")
      throw UserError("--dtype: unknown dtype '" + dtype + "' (int8 on the accelerator; float32 "
                      "or int8 with --target llvm; float32, float16 or int8 with --target cuda)");
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
  use_tuned(o, r);
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
  use_tuned(o, r);
  std::cout << rt::cpu::cpu_op_llvm_ir(r);
#else
  not_built();
#endif
}

void run_conv2d_on_cpu(const CpuTargetOptions& cpu, const std::string& layer, int64_t n, int64_t ic,
                       int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                       uint32_t seed, const std::string& save) {
#ifdef WEFT_HAVE_CPU_BACKEND
  rt::cpu::CpuRunRequest r = conv_request(cpu, layer, n, ic, h, w, oc, k, stride, pad);
  r.seed = seed;
  r.save_dir = save;
  use_tuned(cpu, r);
  run_and_print(r);
#else
  not_built();
#endif
}

void print_conv2d_llvm(const CpuTargetOptions& cpu, const std::string& layer, int64_t n,
                       int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride,
                       int64_t pad) {
#ifdef WEFT_HAVE_CPU_BACKEND
  rt::cpu::CpuRunRequest r = conv_request(cpu, layer, n, ic, h, w, oc, k, stride, pad);
  use_tuned(cpu, r);
  std::cout << rt::cpu::cpu_op_llvm_ir(r);
#else
  not_built();
#endif
}

}  // namespace weft::cli
