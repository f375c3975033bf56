// Feeds a compiled accelerator program (compiler/accel/program.h) into the instruction-stream
// builder: each operation becomes the builder call of its kind, with DRAM tensors placed where
// the caller says.
#pragma once

#include <cstdint>
#include <map>

#include "compiler/accel/program.h"
#include "runtime/stream/stream_builder.h"

namespace weft::rt {

/// Where each DRAM tensor of a program starts, in elements of the memory type that moves it
/// (what LOAD/STORE dram_base counts).
using TensorPlacement = std::map<const compiler::ir::BufferObj*, int64_t>;

/// Appends every operation of `program` to `builder`. UserError naming the tensor when one is
/// not placed.
void append(StreamBuilder& builder, const compiler::accel::Program& program,
            const TensorPlacement& placement);

}  // namespace weft::rt
