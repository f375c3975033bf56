// Image placement of compiled programs; see placement.h.
#include "runtime/ops/placement.h"

#include <algorithm>
#include <memory>

#include "driver/launch.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/errors.h"
#include "runtime/stream/compiled_program.h"

namespace weft::rt {

namespace {

uint64_t align(uint64_t v) { return (v + 4095) / 4096 * 4096; }

std::unique_ptr<StreamBuilder> stream(const isa::Layout& l, const compiler::accel::Program& p,
                                      const std::vector<TensorSlot>& tensors,
                                      const std::vector<uint64_t>& at) {
  TensorPlacement placement;
  for (size_t i = 0; i < tensors.size(); ++i) {
    placement[tensors[i].buffer.get()] = static_cast<int64_t>(at[i]) / tensors[i].elem_bytes;
  }
  auto sb = std::make_unique<StreamBuilder>(l);
  append(*sb, p, placement);
  sb->synchronize();
  return sb;
}

}  // namespace

uint64_t PlacedProgram::address(const compiler::ir::Buffer& b) const {
  auto it = at.find(b.get());
  if (it == at.end()) throw InternalError("placed program: tensor '" + b->name + "' not placed");
  return it->second;
}

PlacedProgram place_program(const isa::Layout& l, const compiler::accel::Program& program,
                            const std::vector<TensorSlot>& tensors) {
  // Build once to learn the stream's length (it does not depend on the addresses), then
  // lay the tensors out behind it.
  const uint64_t insns =
      stream(l, program, tensors, std::vector<uint64_t>(tensors.size(), 0))->insns().size();
  std::vector<uint64_t> at;
  uint64_t next = align(insns * 16);
  for (const TensorSlot& t : tensors) {
    at.push_back(next);
    next = align(next + t.bytes);
  }
  PlacedProgram p;
  p.uop_at = next;
  p.stream = stream(l, program, tensors, at)->build(0, p.uop_at);
  if (p.stream.insn_count != insns) {
    throw InternalError("place_program: the stream changed length with its placement");
  }
  for (size_t i = 0; i < tensors.size(); ++i) p.at[tensors[i].buffer.get()] = at[i];
  p.image_bytes = align(p.uop_at + p.stream.uop_bytes.size());
  return p;
}

std::vector<uint8_t> program_image(const PlacedProgram& p) {
  std::vector<uint8_t> image(p.image_bytes, 0);
  p.stream.place(image);
  return image;
}

std::string listing(const isa::Layout& l, const PlacedProgram& p) {
  std::vector<std::pair<uint64_t, std::string>> at;
  for (const auto& [buffer, addr] : p.at) at.push_back({addr, buffer->name});
  std::sort(at.begin(), at.end());
  std::string s = "// " + std::to_string(p.stream.insn_count) + " instructions;";
  for (const auto& [addr, name] : at) s += " " + name + " at byte " + std::to_string(addr) + ",";
  s += " micro-ops at " + std::to_string(p.uop_at) + "\n";
  for (size_t i = 0; i < p.stream.insns.size(); ++i)
    s += std::to_string(i) + ": " + isa::format_insn(l, p.stream.insns[i]) + "\n";
  return s;
}

void run_image(driver::Device& dev, const PlacedProgram& p, std::vector<uint8_t>& image,
               std::chrono::milliseconds timeout) {
  const uint64_t base = dev.alloc(image.size());
  if (base != 0) throw InternalError("run_image: the device's first allocation is not at 0");
  dev.copy_to_device(0, image.data(), image.size());
  driver::run(dev, 0, p.stream.insn_count, timeout);
  dev.copy_from_device(0, image.data(), image.size());
  dev.free(base);
}

}  // namespace weft::rt
