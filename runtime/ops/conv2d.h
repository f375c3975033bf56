// The conv2d operator on an accelerator device: compile (compiler/ops/conv2d.h through the
// lowering pipeline), place it in one DRAM image, pack plain NCHW / OIHW data into the blocked
// device layouts, run it through the driver and unpack the NCHW result.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/pipeline.h"
#include "driver/device.h"
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

/// Compiles and places a conv2d; `after_pass` sees the IR after each pass; `before_tokens`
/// rewrite the emitted program (compile_accel).
Conv2dBuild build_conv2d(const isa::Layout& layout, const compiler::ops::Conv2dShape& shape,
                         const compiler::ops::Conv2dKnobs& knobs,
                         const compiler::ops::Conv2dEpilogue& epilogue,
                         const compiler::PassObserver& after_pass = {},
                         const std::vector<compiler::ProgramPass>& before_tokens = {},
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

}  // namespace weft::rt
