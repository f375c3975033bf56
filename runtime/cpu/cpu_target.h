// The host CPU as a Target (runtime/target/target.h) for `weft run|compile dense|conv2d
// --target llvm`: the operators of compiler/ops/cpu with their default schedules or the
// (tuned) ones given, JIT-compiled by LLVM (executor.h), run on a thread pool and timed by the
// wall clock. conv2d's inputs and output are converted between NCHW/OIHW and the operator's
// channel-blocked layouts (compiler/ops/cpu/layout.h) outside the timed runs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "runtime/target/target.h"

namespace weft::rt::cpu {

class CpuTarget : public Target {
 public:
  struct Options {
    int threads = 1;  // threads of the pool the kernels run on
    // Schedules from the tuning records (runtime/tune/cpu_schedules.h); unset: the defaults.
    std::optional<compiler::ops::cpu::DenseSchedule> dense_schedule;
    std::optional<compiler::ops::cpu::ConvSchedule> conv_schedule;
    nlohmann::json schedule_info;  // echoed as "schedule" in the result (when not null)
  };
  /// UserError for a thread count outside [1, 1024].
  explicit CpuTarget(Options o);

  /// The conversions between the plain layouts of `r` and the buffers of the CPU operator built
  /// for it with any schedule whose int8 conv2d weights are packed by `conv_k_pack`
  /// (ConvSchedule::k_pack: 2 pairs, 4 quads) (`op` left empty for the caller to fill).
  /// UserError for a bad op or dtype.
  static TargetOp layouts(const OpRequest& r, int64_t conv_k_pack = 2);

  std::string name() const override { return "llvm"; }
  TargetOp build(const OpRequest& r) const override;
  void describe(const TargetOp& op, nlohmann::ordered_json& j) const override;
  std::unique_ptr<TargetKernel> compile(const TargetOp& op) const override;
  /// `emit` "llvm": the optimized LLVM IR.
  std::string emit(const OpRequest& r, const std::string& emit) const override;
  std::pair<std::string, double> throughput(bool int8) const override;

 private:
  Options o_;
};

}  // namespace weft::rt::cpu
