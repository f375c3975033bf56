// What a `weft run dense` implies before it starts: multiply-accumulates, instructions, the
// DRAM image and host memory, and how long compiling, the engine and the CPU check will take.
// The times are measured here and now, on a sample of the same dense (one tile group, one and
// two reduction steps, the same knobs) compiled and run on the same engine, and scaled up: a
// 100000^3 dense is seen to take days before anything is allocated.
#pragma once

#include <cstdint>
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

/// Measures and scales as above (well under a second for any shape).
DenseEstimate estimate_dense(const isa::Layout& layout, const isa::Platform& platform,
                             const std::string& engine, const compiler::ops::DenseShape& shape,
                             const compiler::ops::DenseKnobs& knobs,
                             const compiler::ops::DenseEpilogue& epilogue);

/// "3.2 h", "41 s", "12 d".
std::string human_seconds(double s);

}  // namespace weft::cli
