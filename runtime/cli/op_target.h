// `--target llvm|cuda` of `weft run dense|conv2d` and `weft compile dense|conv2d`: one path for
// both (runtime/target/run_op.h runs the operator on a Target, runtime/cpu/cpu_target.h or
// runtime/gpu/gpu_target.h). The options (`--target accel|llvm|cuda`, `--dtype`, `--threads`,
// `--repeats`, `--gpu-path`, `--arch`) are registered here for every target. Without the CPU
// backend (WEFT_CPU_BACKEND=OFF) `--target llvm` is a user error that says how to build it;
// without the CUDA toolkit `--target cuda` runs nothing but `--emit cuda`. The Python package's
// weft.ops(..., target="llvm"|"cuda") runs through run_on_target with its own inputs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/cli/run_cancel.h"
#include "runtime/io/files.h"
#include "runtime/target/run_op.h"

namespace weft::cli {

struct TargetOptions {
  std::string target = "accel";
  std::string dtype;  // empty: int8 on the accelerator, float32 on llvm and cuda
  int threads = 1;
  int repeats = 5;
  std::string gpu_path = "auto";  // cuda: auto, simt, tensor-core, dp4a
  std::string arch;               // cuda --emit ptx: sm_XX (default: the GPU's, else sm_75)
  std::string tune_db;            // llvm: tuning records to take schedules from (--tune-db)
  bool no_tuned = false;          // llvm: the default schedules, ignoring records (--no-records)
  std::string cpu_isa;            // llvm: native or avx2 (--cpu-isa; empty: WEFT_CPU_ISA)
  RunCanceller* canceller = nullptr;  // lets another thread stop the runs (Python's Ctrl-C)

  /// A copy with the tuning-record options of the operator's own options (--tune-db,
  /// --no-records, registered by the dense and conv2d options).
  TargetOptions with_records(const std::string& db, bool no_records) const {
    TargetOptions c = *this;
    c.tune_db = db;
    c.no_tuned = no_records;
    return c;
  }
  /// Registers the options on a subcommand (`run` adds --threads and --repeats).
  void add_to(CLI::App& cmd, bool run);
  /// Whether the CPU backend was chosen; UserError for an unknown target, or a dtype the
  /// accelerator does not support.
  bool is_llvm() const;
  /// Whether the GPU backend (--target cuda) was chosen; UserError for a dtype it lacks.
  bool is_cuda() const;
  /// Whether a code-generating target (llvm or cuda) was chosen rather than the accelerator.
  bool is_llvm_or_cuda() const { return is_cuda() || is_llvm(); }
};

/// The request of a dense (A M x K, W N x K) or a conv2d (a ResNet-18 layer `layer` with batch
/// `n` when not empty, else the shape) on the options' dtype and repeats.
rt::OpRequest dense_request(const TargetOptions& o, int64_t m, int64_t n, int64_t k);
rt::OpRequest conv2d_request(const TargetOptions& o, const std::string& layer, int64_t n,
                             int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k,
                             int64_t stride, int64_t pad);
/// Runs `r` on the target the options choose (the GPU, or the host CPU with its tuned
/// schedule), stopping between timed runs when the canceller says so; the JSON report.
nlohmann::ordered_json run_on_target(const TargetOptions& o, const rt::OpRequest& r,
                                     rt::OutputSet& outputs, rt::OpIo io = {});
/// UserError (the CLI's message) when a run's report says the output is wrong.
void check_target_run(const nlohmann::ordered_json& report, const std::string& op);

/// `weft run dense --target llvm|cuda`: runs, prints JSON, UserError when the result is wrong.
void run_dense_on_target(const TargetOptions& o, int64_t m, int64_t n, int64_t k, uint32_t seed,
                         const std::string& save);
/// `weft run conv2d --target llvm|cuda` (`layer` instead of the shape when not empty).
void run_conv2d_on_target(const TargetOptions& o, const std::string& layer, int64_t n, int64_t ic,
                          int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                          uint32_t seed, const std::string& save);
/// `weft compile dense --target llvm|cuda --emit llvm|cuda|ptx`.
void print_dense_on_target(const TargetOptions& o, const std::string& emit, int64_t m, int64_t n,
                           int64_t k);
/// `weft compile conv2d --target llvm|cuda --emit llvm|cuda|ptx`.
void print_conv2d_on_target(const TargetOptions& o, const std::string& emit,
                            const std::string& layer, int64_t n, int64_t ic, int64_t h, int64_t w,
                            int64_t oc, int64_t k, int64_t stride, int64_t pad);

}  // namespace weft::cli
