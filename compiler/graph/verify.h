// The graph verifier, run after building and after every pass: ids and producers are
// consistent, every live node reads live values, the graph is acyclic, constants hold exactly
// their type's bytes, and every node's output types are what infer_output_types gives (shape,
// dtype and layout always; quantization where the operator fixes it).
#pragma once

#include <string>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Throws UserError for a cycle or an operator whose inputs do not fit (a user's graph can be
/// wrong that way) and InternalError for a broken invariant, naming the node or value and
/// `after` (the pass that just ran, for the message).
void verify(const Graph& g, const std::string& after = "");

}  // namespace weft::compiler::graph
