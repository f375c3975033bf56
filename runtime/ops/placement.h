// One DRAM image for a compiled accelerator program: the instructions at address 0, then each
// tensor, then the micro-op area, every region 4 KiB aligned. Operators (dense.h, conv2d.h)
// place their program with this, fill the tensors, and run the image on a device.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/accel/program.h"
#include "driver/device.h"
#include "runtime/stream/stream_builder.h"

namespace weft::rt {

/// A DRAM tensor of the program: its buffer, its size, and the element size of the memory
/// type that moves it (LOAD/STORE address it in those elements).
struct TensorSlot {
  compiler::ir::Buffer buffer;
  uint64_t bytes = 0;
  int elem_bytes = 1;
};

/// A built stream and where everything is in the image.
struct PlacedProgram {
  Program stream;
  std::map<const compiler::ir::BufferObj*, uint64_t> at;  // byte address of each tensor
  uint64_t uop_at = 0, image_bytes = 0;
  uint64_t address(const compiler::ir::Buffer& b) const;
};

/// Builds the instruction stream of `program` with `tensors` placed behind it.
PlacedProgram place_program(const isa::Layout& layout, const compiler::accel::Program& program,
                            const std::vector<TensorSlot>& tensors);

/// A zeroed image holding the instructions and micro-ops.
std::vector<uint8_t> program_image(const PlacedProgram& p);

/// The instruction listing `weft compile --emit asm` prints: a line with the instruction count
/// and where each tensor and the micro-ops are (tensors in address order), then one numbered
/// line per instruction.
std::string listing(const isa::Layout& layout, const PlacedProgram& p);

/// Runs `image` (instructions at 0) on a device opened with at least image.size() bytes, and
/// reads the final image back into it.
void run_image(driver::Device& dev, const PlacedProgram& p, std::vector<uint8_t>& image,
               std::chrono::milliseconds timeout);

}  // namespace weft::rt
