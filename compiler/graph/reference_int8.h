// The int8 reference interpreter of quantized graphs: straight loops over logical (plain)
// tensors, written from the semantics in quantize.h, sharing no loops with the executor's
// kernels or the accelerator's lowering (only the rounding rules, which int8_rounding_test
// pins case by case). Layouts are ignored (Pack and Unpack are identities on
// logical tensors, weft.AccelConv/AccelDense are QConv/QDense), so it interprets the graph
// after any pass of the int8 pipeline. The executor's results on every engine (functional,
// cycle, rtl; the CPU kernels and the LLVM int8 kernels) must equal it bit for bit.
//
// Its rounding is compiler/ops/int8_rounding.h's: Quantize rounds half to even and saturates;
// int8 Add/Requantize shift rounding half up (shift_round); averages divide rounding half up
// (round_div); QConv/QDense end in the accelerator's epilogue (a floor shift: their bias
// carries the rounding term). Sums and windows are interpret_kernels.h's loops on integers. It
// keeps its own walk over the nodes: its values are int8 tensors with exponents, its constants
// may be packed, and its operators are Weft's int8 kinds, none of which the float
// interpreter (interpret.h) has.
#pragma once

#include <functional>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Sees each value a node computes, as real numbers: an int8 value with a per-tensor
/// power-of-two scale dequantized (q * 2^e), an f32 value as it is (others are not shown).
using Int8ValueObserver = std::function<void(ValueId, const std::vector<float>&)>;

/// Runs an int8 graph on fp32 inputs (one per graph input, plain); returns each graph output
/// as float (int8 outputs converted as plain integers, f32 outputs as they are).
std::vector<std::vector<float>> reference_int8(const Graph& g,
                                               const std::vector<std::vector<float>>& inputs,
                                               const Int8ValueObserver& observe = {});

}  // namespace weft::compiler::graph
