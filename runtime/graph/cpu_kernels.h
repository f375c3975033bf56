// The CPU kernels of the graph executor: what the partition leaves on the host (quantize and
// dequantize, int8 pools, int8 adds, layout packing, the int8 conv/dense fallback, and the
// float element-wise nodes the quantizer keeps in fp32, with compiler/ops/float_eltwise.h's
// scalar functions). Plain
// C++ loops on plain (row-major logical) tensors, written for the executor; their rounding is
// compiler/ops/int8_rounding.h's, and the tests hold them to the int8 reference bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::rt::graph {

/// Runs CPU node `n` of `g`: `in[i]` points at input i's bytes (plain layout, or f32 for
/// weft.Quantize's input), `out` at the output's. Pack/Unpack go through pack_activation /
/// unpack_activation instead. UserError naming the node for a kind it has no kernel for.
void run_cpu_node(const compiler::graph::Graph& g, const compiler::graph::Node& n,
                  const std::vector<const uint8_t*>& in, uint8_t* out);

/// Plain NCHW (or NC) int8 -> blocked [N/bn][C/bc][H][W][bn][bc], zero padded.
void pack_activation(const compiler::graph::TensorType& t, int64_t bn, int64_t bc,
                     const int8_t* plain, int8_t* blocked);
/// The reverse (padding dropped).
void unpack_activation(const compiler::graph::TensorType& t, int64_t bn, int64_t bc,
                       const int8_t* blocked, int8_t* plain);

}  // namespace weft::rt::graph
