// The dense operator on an accelerator device: compile (compiler/ops/dense.h through the
// lowering pipeline), build the instruction stream, lay out one DRAM image (instructions,
// packed A, W and D, micro-ops), run it through the driver and unpack the result. Data goes
// in and comes out as plain row-major int8 matrices; the blocked device layout never leaks.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/dense.h"
#include "compiler/pipeline.h"
#include "driver/device.h"
#include "runtime/ops/packing.h"
#include "runtime/ops/placement.h"
#include "runtime/stream/stream_builder.h"

namespace weft::rt {

/// A compiled dense, placed in a DRAM image.
struct DenseBuild {
  compiler::ops::Dense op;
  compiler::accel::Program program;
  PlacedProgram placed;
  BlockedShape a_shape, w_shape, d_shape;
};

/// Compiles and places a dense; `after_pass` sees the IR after each pass.
DenseBuild build_dense(const isa::Layout& layout, const compiler::ops::DenseShape& shape,
                       const compiler::ops::DenseKnobs& knobs,
                       const compiler::ops::DenseEpilogue& epilogue,
                       const compiler::PassObserver& after_pass = {});

/// The DRAM image for inputs `a` (M x K) and `w` (N x K), row-major (and with
/// epilogue.channel_shifts the N per-channel shift amounts, 0..15).
std::vector<uint8_t> dense_image(const DenseBuild& b, const std::vector<int8_t>& a,
                                 const std::vector<int8_t>& w,
                                 const std::vector<int8_t>& channel_shifts = {});

/// The M x N output held in a final image.
std::vector<int8_t> dense_output(const DenseBuild& b, const std::vector<uint8_t>& image);

/// The CPU reference: clip((A . W^T) >> shift) as int8, row-major M x N (column j shifts by
/// shift + channel_shifts[j] with epilogue.channel_shifts).
std::vector<int8_t> dense_reference(const compiler::ops::DenseShape& s,
                                    const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                                    const compiler::ops::DenseEpilogue& e,
                                    const std::vector<int8_t>& channel_shifts = {});

/// Runs a built dense on `device` (opened with memory for b.placed.image_bytes); returns the
/// output
/// and leaves the device's run details available.
std::vector<int8_t> run_dense(driver::Device& device, const DenseBuild& b,
                              const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                              std::chrono::milliseconds timeout,
                              const std::vector<int8_t>& channel_shifts = {});

}  // namespace weft::rt
