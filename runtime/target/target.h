// The one interface through which the runtime runs a built operator on a target: the host CPU
// (runtime/cpu/cpu_target.h: the LLVM JIT and a thread pool) or an NVIDIA GPU
// (runtime/gpu/gpu_target.h: NVRTC and the CUDA driver). A Target builds a request's operator
// from compiler/ops (the target's default schedule, or one the target was given), prints its
// code, and compiles it into a TargetKernel that owns its argument buffers in the target's
// memory. run_op.h is the one single-operator runner on top of it (`weft run OP --target
// llvm|cuda`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ops/conv2d_nchw.h"
#include "compiler/ops/lowered_op.h"

namespace weft::rt {

/// One GEMM-like operator in plain layouts: dense A [M, K], W [N, K], C [M, N] (C = A W^T);
/// conv2d NCHW input, OIHW weights, NCHW output.
struct OpRequest {
  std::string op;                  // "dense" or "conv2d"
  int64_t m = 0, n = 0, k = 0;     // dense
  compiler::ops::Conv2dNchw conv;  // conv2d
  std::string dtype = "float32";
  int repeats = 5;  // timed runs; the median is reported
  uint32_t seed = 1;
  std::string save_dir;  // empty: save nothing
};

/// A request's operator built for a target, with the conversions between the request's plain
/// layouts and the kernel's buffers (a CPU conv2d works on channel-blocked tensors).
struct TargetOp {
  compiler::ops::LoweredOp op;
  /// Plain input `arg` (its values) as the bytes of the kernel's argument `arg`.
  std::function<std::vector<uint8_t>(size_t arg, const std::vector<double>& plain)> pack;
  /// The kernel's output bytes as plain values.
  std::function<std::vector<double>(const std::vector<uint8_t>& bytes)> unpack;
};

/// A compiled operator on a target with its argument buffers (inputs, then outputs).
class TargetKernel {
 public:
  virtual ~TargetKernel() = default;
  /// Copies `bytes` into argument `arg` (as large as its buffer).
  virtual void write(size_t arg, const std::vector<uint8_t>& bytes) = 0;
  /// The bytes of argument `arg`.
  virtual std::vector<uint8_t> read(size_t arg) = 0;
  /// Runs once, to completion.
  virtual void run() = 0;
  /// Runs once; the seconds it took (host wall clock, or device events on a GPU).
  virtual double timed_run() = 0;
  /// Result fields about the compiled code (the GPU: its kernel count).
  virtual void describe(nlohmann::ordered_json& j) const { (void)j; }
};

/// A target that builds, shows and runs operators.
class Target {
 public:
  virtual ~Target() = default;
  /// "llvm" or "cuda" (the --target name).
  virtual std::string name() const = 0;
  /// The request's operator; UserError for a bad op, shape, dtype or schedule.
  virtual TargetOp build(const OpRequest& r) const = 0;
  /// Result fields about the target (CPU: threads, host, schedule; GPU: path, device, arch);
  /// UserError when the target cannot run here (no GPU).
  virtual void describe(const TargetOp& op, nlohmann::ordered_json& j) const = 0;
  /// Compiles `op` and allocates its buffers.
  virtual std::unique_ptr<TargetKernel> compile(const TargetOp& op) const = 0;
  /// The code of the request's operator (`emit`: llvm; cuda or ptx); UserError otherwise.
  virtual std::string emit(const OpRequest& r, const std::string& emit) const = 0;
  /// The throughput field and its unit: {"gflops", 1e9} on the CPU, {"tflops", 1e12} on the
  /// GPU ("gops", "tops" for int8).
  virtual std::pair<std::string, double> throughput(bool int8) const = 0;
};

}  // namespace weft::rt
