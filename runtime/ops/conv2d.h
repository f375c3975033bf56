// The conv2d operator on an accelerator device: compile (compiler/ops/conv2d.h through the
// lowering pipeline, with the program rewrites asked for), place it in one DRAM image, pack
// plain NCHW / OIHW data into the blocked device layouts, run it through the driver and unpack
// the NCHW result; run_layer does all of it on a named engine, with a correctness check.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/pipeline.h"
#include "driver/device.h"
#include "driver/timeline.h"
#include "runtime/ops/placement.h"

namespace weft::rt {

/// A compiled, placed conv2d.
struct Conv2dBuild {
  compiler::ops::Conv2d op;
  compiler::accel::Program program;
  PlacedProgram placed;
  /// Constant tensors that program rewrites added (passes/bias_gemm.h), with their bytes.
  std::vector<std::pair<TensorSlot, std::vector<uint8_t>>> constants;
};

/// Compiles and places a conv2d; `after_pass` sees the IR after each pass; `rewrites` are the
/// pipeline's program rewrites (compiler/pipeline.h), whose added tensors `constants` holds.
Conv2dBuild build_conv2d(const isa::Layout& layout, const compiler::ops::Conv2dShape& shape,
                         const compiler::ops::Conv2dKnobs& knobs,
                         const compiler::ops::Conv2dEpilogue& epilogue,
                         const compiler::PassObserver& after_pass = {},
                         const compiler::PipelineOptions& rewrites = {},
                         std::vector<std::pair<TensorSlot, std::vector<uint8_t>>> constants = {});
/// The same for an operator already made (make_conv2d): the rewrites name its tensors.
Conv2dBuild build_conv2d(const isa::Layout& layout, compiler::ops::Conv2d op,
                         const compiler::PassObserver& after_pass = {},
                         const compiler::PipelineOptions& rewrites = {},
                         std::vector<std::pair<TensorSlot, std::vector<uint8_t>>> constants = {});

/// Plain layouts: input N x IC x H x W and weight OC x IC x K x K (int8), bias OC (int32),
/// output N x OC x OH x OW (int8).
struct Conv2dData {
  std::vector<int8_t> input, weight;
  std::vector<int32_t> bias;
  std::vector<int8_t> residual;  // N x OC x OH x OW, with epilogue.residual
  /// OC per-channel shift amounts (0..15, after epilogue.shift), with epilogue.channel_shifts.
  std::vector<int8_t> channel_shifts;
};

/// Random data for a shape (bias small enough to matter after the shift).
Conv2dData random_conv2d_data(const compiler::ops::Conv2dShape& s, uint32_t seed);

/// The DRAM image with the data packed in.
std::vector<uint8_t> conv2d_image(const Conv2dBuild& b, const Conv2dData& data);
/// The N x OC x OH x OW output held in a final image.
std::vector<int8_t> conv2d_output(const Conv2dBuild& b, const std::vector<uint8_t>& image);

/// The CPU reference: clip(((sum >> shift) + bias), relu ? 0 : -128, 127) as int8, NCHW
/// (or the bias_first/residual form of Conv2dEpilogue; with channel_shifts channel o shifts by
/// shift + channel_shifts[o]).
std::vector<int8_t> conv2d_reference(const compiler::ops::Conv2dShape& s, const Conv2dData& d,
                                     const compiler::ops::Conv2dEpilogue& e);

/// Runs a built conv2d on `device` (opened with memory for b.placed.image_bytes).
std::vector<int8_t> run_conv2d(driver::Device& device, const Conv2dBuild& b,
                               const Conv2dData& data, std::chrono::milliseconds timeout);

/// One run of a layer.
struct LayerRun {
  compiler::ops::Conv2dKnobs knobs;
  uint64_t instructions = 0;
  uint64_t cycles = 0;     // 0 on the functional engine
  double utilization = 0;  // non-reset GEMM micro-ops per cycle
  double gops = 0;         // useful ops at the platform clock
  bool checked = false, correct = false;
  int64_t mismatches = 0;
  nlohmann::ordered_json details;  // the device's run details
};

/// Compiles and runs a layer on `data`; checks the output against `expect` (the CPU
/// reference, computed once by the caller for all the runs of a layer) when given. `trace`
/// records a timeline on the cycle engine.
LayerRun run_layer(const isa::Layout& l, const isa::Platform& p, const std::string& engine,
                   const compiler::ops::Conv2dShape& s, const compiler::ops::Conv2dKnobs& k,
                   const compiler::ops::Conv2dEpilogue& e, const Conv2dData& data,
                   const std::vector<int8_t>* expect, driver::Timeline* trace = nullptr);

}  // namespace weft::rt
