// One operator on the GPU backend from start to finish, for `weft run OP --target cuda`:
// random data from a seed, code generation and NVRTC, timed launches (CUDA events), a check
// against a scalar CPU reference, and the result as JSON (the fields of the CPU target's run,
// with the device, the GPU time and TFLOP/s). With a save directory it stages input.npy,
// weight.npy and output.npy in plain layouts (float16 inputs are saved as float32). Also the
// generated CUDA C and PTX for `weft compile --target cuda`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/gpu/ops.h"
#include "runtime/io/files.h"

namespace weft::rt::gpu {

/// What to run or compile.
struct GpuRunRequest {
  std::string op;               // "dense" or "conv2d"
  int64_t m = 0, n = 0, k = 0;  // dense
  Conv2dShape conv;             // conv2d
  std::string dtype = "float32";
  std::string path = "auto";  // auto, simt, tensor-core, dp4a
  int repeats = 5;            // timed runs; the median is reported
  uint32_t seed = 1;
  std::string save_dir;  // empty: save nothing
};


/// The request's operator (UserError for a bad op, shape, dtype or path).
GpuOp build_request_op(const GpuRunRequest& r);

/// The generated CUDA C of the request's operator (needs neither a GPU nor the toolkit).
std::string gpu_op_cuda(const GpuRunRequest& r);

/// Runs the request on the GPU; the .npy files go to `outputs` (the caller commits). The
/// JSON's "correct" is false when the result differs from the reference. UserError without a
/// GPU ("no CUDA driver: ..." / "no CUDA device: ...").
nlohmann::ordered_json run_gpu_op(const GpuRunRequest& r, OutputSet& outputs);

}  // namespace weft::rt::gpu
