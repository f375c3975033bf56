// `weft run dense` on an accelerator engine as one function, called by the CLI (with random
// data from --seed) and by the Python package's weft.ops.dense (with the caller's arrays):
// compile the dense with the given knobs, run it on the engine, check the output against the
// CPU reference and build the JSON report the CLI prints (cycles, utilization next to the
// roofline, per-module stalls, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/dense.h"
#include "driver/timeline.h"
#include "runtime/cli/dense_options.h"
#include "runtime/cli/device_run.h"

namespace weft::cli {

/// What one accelerator run of a dense left.
struct DenseRun {
  nlohmann::ordered_json report;     // what `weft run dense` prints
  std::vector<int8_t> out, expect;   // M x N, row-major: the engine's and the CPU reference's
  Mismatches mismatches;
  driver::Timeline trace;            // filled when dev.trace is set (cycle engine)
};

/// Runs `a` (M x K) and `w` (N x K), plain row-major int8, as `d` and `dev` say with `knobs`;
/// `phase` (optional) hears what it is doing. The timeline is recorded when dev.trace names a
/// file or `keep_timeline` asks for it (cycle engine). UserError for a bad shape, knobs or
/// engine.
DenseRun run_dense_accel(const DenseOptions& d, const DeviceRunOptions& dev,
                         const compiler::ops::DenseKnobs& knobs, const std::vector<int8_t>& a,
                         const std::vector<int8_t>& w,
                         const std::function<void(const std::string&)>& phase = {},
                         bool keep_timeline = false);

/// UserError naming the first differing element when the run's output is not the reference's.
void check_dense_run(const DenseRun& r, int64_t n);

}  // namespace weft::cli
