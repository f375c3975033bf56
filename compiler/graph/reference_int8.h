// An independent int8 reference interpreter of quantized graphs: straight loops over logical
// (plain) tensors, written from the semantics in quantize.h, sharing no code with the
// executor's kernels or the accelerator's lowering. Layouts are ignored (Pack and Unpack are
// identities on logical tensors, weft.AccelConv/AccelDense are QConv/QDense), so it interprets
// the graph after any pass of the int8 pipeline. The executor's results on every engine must
// equal it bit for bit.
//
// Rounding it fixes: Quantize rounds half to even and saturates; a requantizing shift right by
// s > 0 of v computes (v + 2^(s-1)) >> s (half up) for int8 Add/Requantize; averages divide
// rounding half up (floor((2*num + den) / (2*den))); QConv/QDense shift with the floor of the
// arithmetic shift (their bias carries the rounding term).
#pragma once

#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Runs an int8 graph on fp32 inputs (one per graph input, plain); returns each graph output
/// as float (int8 outputs converted as plain integers, f32 outputs as they are).
std::vector<std::vector<float>> reference_int8(const Graph& g,
                                               const std::vector<std::vector<float>>& inputs);

/// Helpers with the reference's rounding (also used by tests).
int32_t rshift_round(int64_t v, int s);  // s may be negative (a left shift)
int64_t div_round(int64_t num, int64_t den);  // den > 0, half up

}  // namespace weft::compiler::graph
