// The host measurer of the CPU tuner (issue #14): JIT-compiles a candidate with LLVM, checks
// its result once against the scalar reference (exact for int8, 1e-5 per accumulated product
// for float32), then times `repeats` runs on one thread after a warm-up and returns the
// median in seconds. The inputs (random, from a fixed seed) and the reference are made once
// per measurer. A candidate that fails to compile or computes a wrong result comes back with
// its error; one slower than `stop_above` on its first timed run stops early.
#pragma once

#include <memory>
#include <mutex>

#include "compiler/ops/lowered_op.h"
#include "compiler/tune/cpu_space.h"
#include "runtime/tune/measurer.h"

namespace weft::rt::tune {

/// A CPU candidate as the runtime builds it: the operator ready for the JIT.
struct CpuOpCandidate : compiler::tune::CpuCandidate {
  compiler::ops::LoweredOp op;
};

class CpuMeasurer : public Measurer {
 public:
  /// `w` is a dense or conv2d CPU workload (cpu_schedules.h); `repeats` timed runs.
  CpuMeasurer(compiler::tune::Workload w, int repeats = 5);
  ~CpuMeasurer() override;
  std::string unit() const override { return "seconds"; }
  MeasureResult measure(const compiler::tune::Candidate& c,
                        double stop_above = std::numeric_limits<double>::infinity()) const override;

  struct Data;

 private:
  const Data& data() const;
  compiler::tune::Workload workload_;
  int repeats_;
  mutable std::mutex mu_;        // makes the data once
  mutable std::mutex run_mu_;    // one timed candidate at a time (timings on a quiet core)
  mutable std::unique_ptr<Data> data_;
};

}  // namespace weft::rt::tune
