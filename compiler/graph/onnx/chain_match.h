// What the import's rewrites of written-out operators (gelu_from_erf.h,
// layer_norm_from_parts.h) ask of a graph while they match a chain of nodes: who reads a
// value, the other operand of a binary node, a scalar constant.
#pragma once

#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::onnx_import {

/// The live nodes reading v; none when v is a graph output (its value must stay).
std::vector<graph::NodeId> chain_readers(const graph::Graph& g, graph::ValueId v);
/// v's only reader (as chain_readers), when it is of `kind`; else null.
const graph::Node* only_reader(const graph::Graph& g, graph::ValueId v, graph::OpKind kind);
/// The operand of binary node n that is not v (kNone when n does not read v exactly once).
graph::ValueId other_operand(const graph::Node& n, graph::ValueId v);
/// Whether v is a float32 constant of one element; its value in *out.
bool scalar_constant(const graph::Graph& g, graph::ValueId v, double* out);
/// A new name for the node that replaces a chain: `first`'s scope (its name up to the last
/// '/') followed by `op`.
std::string chain_name(const std::string& first, const std::string& op);

}  // namespace weft::compiler::onnx_import
