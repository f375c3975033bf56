// A schedule written for the accelerator by its user (VTA's tutorials' style: tensors declared
// already blocked, tiles cached into the inp/wgt/acc buffers, the block loops tensorized), made
// into a program that runs on the caller's data: compiled by the lowering pipeline, placed in
// one DRAM image behind its instructions, each DRAM tensor in the units of the memory type that
// moves it. A tensor lives in DRAM in its own C order, so its bytes are the caller's array's.
// The Python package's weft.build(target="accel") is this.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/pipeline.h"
#include "compiler/te/schedule.h"
#include "runtime/ops/placement.h"

namespace weft::rt {

/// A compiled, placed schedule and its argument tensors.
struct ScheduleProgram {
  compiler::accel::Program program;
  PlacedProgram placed;
  std::vector<compiler::te::Tensor> args;  // in the caller's order
};

/// Compiles `schedule` for `layout` and places `args` (every tensor the program reads or writes
/// in DRAM, and no other). UserError for a DRAM tensor that is not an argument, an argument the
/// program never touches, one moved as two memory types of different element sizes, or one
/// whose dtype is not what its transfers move (int32 for ACC, int8 otherwise: a STORE narrows).
ScheduleProgram build_schedule_program(const isa::Layout& layout,
                                       compiler::te::Schedule& schedule,
                                       const std::vector<compiler::te::Tensor>& args,
                                       const compiler::PassObserver& after_pass = {});

/// Bytes of a tensor in DRAM.
uint64_t tensor_bytes(const compiler::te::Tensor& t);

/// The image to run: instructions and micro-ops, and argument i's bytes from `data[i]` (as
/// many as tensor_bytes; a null pointer leaves it zero, e.g. an output).
std::vector<uint8_t> schedule_image(const ScheduleProgram& p, const std::vector<const void*>& data);

/// Copies argument `arg`'s bytes out of a final image.
void read_argument(const ScheduleProgram& p, const std::vector<uint8_t>& image, size_t arg,
                   void* out);

}  // namespace weft::rt
