// The `--target llvm|cuda` path of `weft run` and `weft compile`; see op_target.h.
#include "runtime/cli/op_target.h"

#include <iostream>
#include <memory>

#include "hardware/isa/errors.h"
#include "runtime/cli/conv2d_options.h"
#include "runtime/gpu/gpu_target.h"
#include "runtime/io/files.h"
#include "runtime/target/run_op.h"
#ifdef WEFT_HAVE_CPU_BACKEND
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "runtime/cpu/cpu_target.h"
#include "runtime/tune/cpu_dispatch.h"
#include "runtime/tune/cpu_schedules.h"
#endif

namespace weft::cli {

namespace {

rt::OpRequest request(const TargetOptions& o, const std::string& op) {
  rt::OpRequest r;
  r.op = op;
  r.dtype = o.dtype.empty() ? "float32" : o.dtype;
  r.repeats = o.repeats;
  return r;
}

#ifdef WEFT_HAVE_CPU_BACKEND
// The dispatch table's kernel for the request's shape on this host kind, if it has one.
template <typename D>
nlohmann::json dispatch_info(const D& d) {
  nlohmann::json j = rt::tune::knobs_of(d.schedule);
  j["source"] = d.source;
  j["kernel"] = d.kernel;
  j["bucket"] = d.bucket;
  return j;
}

// The schedule for the request's operator on this host: an exact tuning record (--tune-db,
// else the shipped records), else the kernel of the host kind's dispatch table for the shape's
// bucket, else the default schedule.
void use_tuned(const TargetOptions& o, const rt::OpRequest& r, rt::cpu::CpuTarget::Options& c) {
  if (o.no_tuned) {
    c.schedule_info = {{"source", "default schedule (--no-records)"}};
    return;
  }
  if (r.op == "dense") {
    if (auto t = rt::tune::tuned_dense(r.m, r.n, r.k, r.dtype, o.tune_db)) {
      c.dense_schedule = t->schedule;
      c.schedule_info = rt::tune::knobs_of(t->schedule);
      c.schedule_info["source"] = t->source;
      return;
    }
    if (auto d = rt::tune::dispatch_dense(r.m, r.n, r.k, r.dtype, o.threads)) {
      c.dense_schedule = d->schedule;
      c.schedule_info = dispatch_info(*d);
      return;
    }
  } else if (r.op == "conv2d") {
    if (auto t = rt::tune::tuned_conv2d(r.conv, r.dtype, o.tune_db)) {
      c.conv_schedule = t->schedule;
      c.schedule_info = rt::tune::knobs_of(t->schedule);
      c.schedule_info["source"] = t->source;
      return;
    }
    if (auto d = rt::tune::dispatch_conv2d(r.conv, r.dtype, o.threads)) {
      c.conv_schedule = d->schedule;
      c.schedule_info = dispatch_info(*d);
      return;
    }
  }
  c.schedule_info = {
      {"source", "default schedule (no tuning record or dispatch table for this shape and host)"}};
}
#endif

// The target the options chose for `r`: the GPU, or the host CPU with the tuned schedule.
std::unique_ptr<rt::Target> target_for(const TargetOptions& o, const rt::OpRequest& r) {
  if (o.is_cuda()) return std::make_unique<rt::gpu::GpuTarget>(o.gpu_path, o.arch);
#ifdef WEFT_HAVE_CPU_BACKEND
  if (!o.cpu_isa.empty()) compiler::codegen::set_cpu_isa(o.cpu_isa);
  rt::cpu::CpuTarget::Options c;
  c.threads = o.threads;
  use_tuned(o, r, c);
  return std::make_unique<rt::cpu::CpuTarget>(std::move(c));
#else
  (void)r;
  throw UserError(
      "this weft was built without the CPU backend: install LLVM 16 (sudo apt-get install "
      "llvm-16-dev libzstd-dev) and configure with -DWEFT_CPU_BACKEND=ON");
#endif
}

void run_and_print(const TargetOptions& o, rt::OpRequest r, uint32_t seed,
                   const std::string& save) {
  r.seed = seed;
  r.save_dir = save;
  rt::OutputSet outputs;
  const nlohmann::ordered_json j = run_on_target(o, r, outputs);
  outputs.commit();
  std::cout << j.dump(2) << "\n";
  check_target_run(j, r.op);
}

void print(const TargetOptions& o, const std::string& emit, const rt::OpRequest& r) {
  std::cout << target_for(o, r)->emit(r, emit);
}

}  // namespace

void TargetOptions::add_to(CLI::App& cmd, bool run) {
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
  cmd.add_option("--cpu-isa", cpu_isa,
                 "llvm: the vector ISA to compile for, native or avx2 (AVX-512 and VNNI off, as "
                 "on an AVX2-only host; default: WEFT_CPU_ISA, else native). The schedule is an "
                 "exact tuning record when there is one, else the kernel of this ISA's dispatch "
                 "table for the shape (the result's \"schedule\" names it and its source)");
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

bool TargetOptions::is_cuda() const {
  if (target != "cuda") return false;
  if (!dtype.empty() && dtype != "float32" && dtype != "float16" && dtype != "int8")
    throw UserError("--dtype: unknown dtype '" + dtype + "' (float32, float16 or int8)");
  return true;
}

bool TargetOptions::is_llvm() const {
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

rt::OpRequest dense_request(const TargetOptions& o, int64_t m, int64_t n, int64_t k) {
  rt::OpRequest r = request(o, "dense");
  r.m = m;
  r.n = n;
  r.k = k;
  return r;
}

// The request of a conv2d: a ResNet-18 layer (with batch `n`) or the given shape.
rt::OpRequest conv2d_request(const TargetOptions& o, const std::string& layer, int64_t n,
                             int64_t c, int64_t h, int64_t w, int64_t oc, int64_t k,
                             int64_t stride, int64_t pad) {
  rt::OpRequest r = request(o, "conv2d");
  const compiler::ops::Conv2dShape s = conv2d_shape(layer, n, h, w, c, oc, k, stride, pad);
  r.conv = compiler::ops::Conv2dNchw{s.n, s.ic, s.h, s.w, s.oc, s.k, s.k, s.stride, s.pad};
  return r;
}

nlohmann::ordered_json run_on_target(const TargetOptions& o, const rt::OpRequest& r,
                                     rt::OutputSet& outputs, rt::OpIo io) {
  if (o.canceller) {
    io.before_run = [c = o.canceller, then = io.before_run] {
      c->check();
      if (then) then();
    };
  }
  const std::unique_ptr<rt::Target> target = target_for(o, r);
  return rt::run_op(*target, r, outputs, io);
}

void check_target_run(const nlohmann::ordered_json& j, const std::string& op) {
  if (j["correct"].get<bool>()) return;
  throw UserError("the " + op + " output differs from the scalar reference in " +
                  std::to_string(j["mismatches"].get<int64_t>()) + " elements (max error " +
                  std::to_string(j["max_abs_error"].get<double>()) + ")");
}

void run_dense_on_target(const TargetOptions& o, int64_t m, int64_t n, int64_t k, uint32_t seed,
                         const std::string& save) {
  run_and_print(o, dense_request(o, m, n, k), seed, save);
}

void run_conv2d_on_target(const TargetOptions& o, const std::string& layer, int64_t n, int64_t ic,
                          int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                          uint32_t seed, const std::string& save) {
  run_and_print(o, conv2d_request(o, layer, n, ic, h, w, oc, k, stride, pad), seed, save);
}

void print_dense_on_target(const TargetOptions& o, const std::string& emit, int64_t m, int64_t n,
                           int64_t k) {
  print(o, emit, dense_request(o, m, n, k));
}

void print_conv2d_on_target(const TargetOptions& o, const std::string& emit,
                            const std::string& layer, int64_t n, int64_t ic, int64_t h, int64_t w,
                            int64_t oc, int64_t k, int64_t stride, int64_t pad) {
  print(o, emit, conv2d_request(o, layer, n, ic, h, w, oc, k, stride, pad));
}

}  // namespace weft::cli
