// One operator on the CPU backend from start to finish, for `weft run OP --target llvm`: random
// data from a seed, JIT compile, timed runs on a thread pool, a check against the scalar
// reference, and the result as JSON (the fields of `weft run`, plus wall time and GFLOP/s).
// With a save directory it stages input.npy, weight.npy and output.npy in plain layouts
// (dense: row-major [M, K], [N, K], [M, N]; conv2d: NCHW, OIHW, NCHW) on an OutputSet.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runtime/cpu/ops.h"
#include "runtime/io/files.h"

namespace weft::rt::cpu {

/// What to run.
struct CpuRunRequest {
  std::string op;               // "dense" or "conv2d"
  int64_t m = 0, n = 0, k = 0;  // dense
  Conv2dShape conv;             // conv2d
  std::string dtype = "float32";
  int threads = 1;
  int repeats = 5;  // timed runs; the median is reported
  uint32_t seed = 1;
  std::string save_dir;  // empty: save nothing
  // Schedules from the tuning records (runtime/tune/cpu_schedules.h); unset: the defaults.
  std::optional<DenseSchedule> dense_schedule;
  std::optional<ConvSchedule> conv_schedule;
  nlohmann::json schedule_info;  // echoed as "schedule" in the result (when not null)
};


/// Runs the request; the .npy files go to `outputs` (the caller commits). The JSON's
/// "correct" is false when the result differs from the reference (the caller decides the
/// exit code). UserError for a bad op, shape, dtype or thread count.
nlohmann::ordered_json run_cpu_op(const CpuRunRequest& request, OutputSet& outputs);

/// The optimized LLVM IR of the request's operator (for `weft compile --emit llvm`).
std::string cpu_op_llvm_ir(const CpuRunRequest& request);

}  // namespace weft::rt::cpu
