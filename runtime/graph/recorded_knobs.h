// The tuning records as the graph executor's first source of conv2d schedules (issue #14):
// the best recorded knobs of a layer's workload on the configuration and platform
// (rt::tune::recorded_conv2d_knobs: --tune-db first, then the shipped records in
// runtime/tune/records), kept only when the network can use them, i.e. when their tiling
// covers the output, input and output channels exactly (a packed value passes from one kernel
// to the next with no padding blocks) and the operator builds with the node's epilogue
// (a fused residual needs accumulator room the standalone tuning did not reserve).
//
//   if (auto k = exact_recorded_knobs(layout, platform, shape, epilogue, db)) ...
//
// Dense layers run as 1x1 convolutions in the executor; their dense records (DenseKnobs) are
// not translated, so dense nodes use the executor's own choice.
#pragma once

#include <optional>
#include <string>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::rt::graph {

/// True when `k` tiles `s` exactly on `l` (see above).
bool knobs_cover_exactly(const isa::Layout& l, const compiler::ops::Conv2dShape& s,
                         const compiler::ops::Conv2dKnobs& k);

/// The recorded knobs of `s` when they exist, cover it exactly and build with `e`; else nothing.
/// A corrupt records file is a UserError (from the database).
std::optional<compiler::ops::Conv2dKnobs> exact_recorded_knobs(
    const isa::Layout& l, const isa::Platform& pf, const compiler::ops::Conv2dShape& s,
    const compiler::ops::Conv2dEpilogue& e, const std::string& db_path);

}  // namespace weft::rt::graph
