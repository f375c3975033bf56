// The GPU backend in the `weft` CLI: `--target cuda` on `weft run dense|conv2d` (JSON like the
// CPU target's, with the GPU time and TFLOP/s; without a GPU a user error: "no CUDA driver:
// libcuda.so.1 not found" or "no CUDA device") and on `weft compile dense|conv2d` with
// `--emit cuda` (the generated CUDA C; needs nothing) or `--emit ptx` (NVRTC; needs the
// toolkit at build time, not a GPU). Options are CpuTargetOptions' (--dtype, --repeats,
// --gpu-path, --arch).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/cli/cpu_target.h"

namespace weft::cli {

/// `weft run dense --target cuda`: runs, prints JSON, UserError when the result is wrong.
void run_dense_on_gpu(const CpuTargetOptions& o, int64_t m, int64_t n, int64_t k, uint32_t seed,
                      const std::string& save);
/// `weft run conv2d --target cuda` (`layer` instead of the shape when not empty).
void run_conv2d_on_gpu(const CpuTargetOptions& o, const std::string& layer, int64_t n,
                       int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride,
                       int64_t pad, uint32_t seed, const std::string& save);
/// `weft compile dense --target cuda --emit cuda|ptx`.
void print_dense_gpu(const CpuTargetOptions& o, const std::string& emit, int64_t m, int64_t n,
                     int64_t k);
/// `weft compile conv2d --target cuda --emit cuda|ptx`.
void print_conv2d_gpu(const CpuTargetOptions& o, const std::string& emit,
                      const std::string& layer, int64_t n, int64_t ic, int64_t h, int64_t w,
                      int64_t oc, int64_t k, int64_t stride, int64_t pad);

}  // namespace weft::cli
