// What a `weft run dense` implies before it starts: multiply-accumulates, instructions, the
// DRAM image and host memory, and how long compiling, the engine and the CPU check will take.
// The times are measured here and now on samples of the same dense (one tile group with more
// and more reduction steps, then more groups, the same knobs) compiled and run on the same
// engine, each timed a few times (the fastest kept), until a sample takes long enough to time
// well; a straight line through the last two samples separates the fixed cost (opening the
// device, copying the image) from the cost per unit of work, and only the latter is scaled up.
// A 100000^3 dense is seen to take days before anything is allocated, and a 2048^3 one is not
// estimated at tens of seconds for a run of one.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/ops/dense.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::cli {

struct DenseEstimate {
  double macs = 0, padded_macs = 0;
  double instructions = 0;
  double dram_image_bytes = 0, host_bytes = 0, host_memory_bytes = 0;
  double compile_s = 0, run_s = 0, check_s = 0;
  std::string engine, sample;  // the sample's shape, "MxNxK"
  double total_s() const { return compile_s + run_s + check_s; }
  bool fits_in_memory() const { return host_bytes <= host_memory_bytes; }
  nlohmann::ordered_json to_json() const;
  /// One line for stderr: the work and the times.
  std::string summary() const;
};

/// Worth estimating before a run: above about two billion padded MACs (a few seconds).
bool dense_is_big(const isa::Layout& layout, const compiler::ops::DenseShape& shape,
                  const compiler::ops::DenseKnobs& knobs);

/// The seconds one sample took: compiling it, running it on the engine, the CPU check.
struct SampleSeconds {
  double compile = 0, run = 0, check = 0;
};
/// Times one sample dense (with the run's knobs and epilogue); the default compiles it, runs it
/// on the engine and checks it.
using SampleTimer = std::function<SampleSeconds(const compiler::ops::DenseShape&)>;

/// Measures and scales as above (about a second at most for any shape). `timer` replaces the
/// measurement (tests give a known cost model).
DenseEstimate estimate_dense(const isa::Layout& layout, const isa::Platform& platform,
                             const std::string& engine, const compiler::ops::DenseShape& shape,
                             const compiler::ops::DenseKnobs& knobs,
                             const compiler::ops::DenseEpilogue& epilogue,
                             const SampleTimer& timer = {});

/// "3.2 h", "41 s", "12 d".
std::string human_seconds(double s);

}  // namespace weft::cli
