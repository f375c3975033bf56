// `weft run conv2d` on an accelerator engine as one function, called by the CLI (with random
// data from --seed) and by the Python package's weft.ops.conv2d (with the caller's arrays):
// choose the knobs as the options say, compile, run on the engine, check the output against
// the CPU reference and build the JSON report the CLI prints.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "driver/timeline.h"
#include "runtime/cli/conv2d_options.h"
#include "runtime/cli/device_run.h"
#include "runtime/ops/conv2d.h"

namespace weft::cli {

/// What one accelerator run of a conv2d left.
struct Conv2dRun {
  nlohmann::ordered_json report;     // what `weft run conv2d` prints
  std::vector<int8_t> out, expect;   // N x OC x OH x OW: the engine's and the CPU reference's
  Mismatches mismatches;
  driver::Timeline trace;            // filled when dev.trace is set or a timeline is kept
};

/// Runs `data` (plain NCHW input, OIHW weight, OC bias unless o.no_bias) as `o` and `dev` say.
/// The timeline is recorded when dev.trace names a file or `keep_timeline` asks for it (cycle
/// engine). UserError for a bad shape, knobs or engine.
Conv2dRun run_conv2d_accel(const Conv2dOptions& o, const DeviceRunOptions& dev,
                           const rt::Conv2dData& data, bool keep_timeline = false);

/// UserError naming the first differing element when the run's output is not the reference's.
void check_conv2d_run(const Conv2dRun& r);

}  // namespace weft::cli
