// What the compiler makes of one accelerator node of a compiled network, as the executor runs
// it (`weft compile resnet18 --emit ir|asm --node NAME [--pass P]`): the node lowered with the
// executor's knob source and rewrite options (compiler/graph/lower/accel_kernel.h), printed as
// the loop IR after each pass of the accelerator pipeline and the program after each program
// step that ran (its rewrites included), or as the instructions placed in the network's device
// memory.
#pragma once

#include <string>

#include "compiler/graph/pipeline.h"
#include "runtime/graph/executor.h"

namespace weft::rt::graph {

/// `emit` "ir": the pipeline's output after every pass and step (`pass` non-empty: only after
/// that one); "asm": the placed instruction listing. UserError for an unknown node, pass or
/// emit.
std::string emit_node_kernel(const compiler::graph::CompiledGraph& c, const isa::Layout& layout,
                             const isa::Platform& platform, const ExecutorOptions& options,
                             const std::string& node, const std::string& emit,
                             const std::string& pass = "");

}  // namespace weft::rt::graph
