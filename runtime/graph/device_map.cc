// The device memory map of a compiled network; see device_map.h.
#include "runtime/graph/device_map.h"

#include <sstream>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "runtime/stream/compiled_program.h"

namespace weft::rt::graph {

namespace {

uint64_t align(uint64_t v, uint64_t a = 4096) { return (v + a - 1) / a * a; }

// Between two slices of a batched dense in one stream: the next slice's loads wait until the
// compute module has read every tile of this one, its compute until the store module has
// written this one's results out, and its stores until compute has finished this one.
void slice_barrier(StreamBuilder& sb) {
  using isa::Module;
  sb.dep_push(Module::kStore, Module::kCompute);
  sb.dep_pop(Module::kStore, Module::kCompute);
  sb.dep_push(Module::kCompute, Module::kLoad);
  sb.dep_pop(Module::kCompute, Module::kLoad);
  sb.dep_push(Module::kCompute, Module::kStore);
  sb.dep_pop(Module::kCompute, Module::kStore);
}

}  // namespace

DeviceMap::DeviceMap(const compiler::graph::Graph& g,
                     const compiler::graph::passes::MemoryPlan& plan,
                     const std::vector<compiler::graph::AccelKernel>& kernels, const isa::Layout& l)
    : g_(g), plan_(plan), kernels_(kernels), placed_(kernels.size()) {
  weights_base_ = 0;
  constants_base_ = align(static_cast<uint64_t>(plan.weight_bytes));
  uint64_t at = constants_base_;
  for (size_t i = 0; i < kernels.size(); ++i) {
    for (const auto& c : kernels[i].constants) {
      at = align(at, c.alignment);
      placed_[i].constant_addrs.push_back(at);
      at += c.bytes.size();
    }
    at = align(at);
  }
  arena_base_ = at;
  program_base_ = align(arena_base_ + static_cast<uint64_t>(plan.device_arena));
  at = program_base_;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const compiler::graph::AccelKernel& k = kernels[i];
    PlacedKernel& p = placed_[i];
    TensorPlacement place;
    for (size_t c = 0; c < k.constants.size(); ++c)
      place[k.constants[c].buffer.get()] = static_cast<int64_t>(
          p.constant_addrs[c] / static_cast<uint64_t>(k.constants[c].elem_bytes));
    // One stream for every slice (a batched dense), each on its slice of the operands; built
    // once its length is known (build() only relocates the micro-op loads).
    StreamBuilder sb(l);
    sb.reserve(k.program.ops.size() * static_cast<size_t>(k.slices) + 16);  // about one each
    for (int64_t s = 0; s < k.slices; ++s) {
      if (s > 0) slice_barrier(sb);
      for (const auto& o : k.operands)
        place[o.buffer.get()] = static_cast<int64_t>(
            (addr(o.value) + static_cast<uint64_t>(s * o.slice_bytes)) /
            static_cast<uint64_t>(o.elem_bytes));
      append(sb, k.program, place);
    }
    sb.synchronize();
    const uint64_t insn_at = at, uop_at = align(at + sb.insns().size() * isa::kInsnBytes, 64);
    p.stream = sb.build(insn_at, uop_at);
    p.insn_addr = insn_at;
    p.insn_count = p.stream.insn_count;
    at = align(uop_at + p.stream.uop_bytes.size());
  }
  total_ = at;
}

uint64_t DeviceMap::addr(compiler::graph::ValueId v) const {
  if (g_.value(v).is_constant()) return weights_base_ + static_cast<uint64_t>(plan_.weights.at(v));
  return arena_base_ + static_cast<uint64_t>(plan_.values.at(v).offset);
}

void DeviceMap::upload(driver::Device& dev) const {
  if (total_ > 0 && dev.alloc(total_) != 0)
    throw InternalError("graph executor: the device's first allocation is not at 0");
  for (const auto& [v, off] : plan_.weights) {
    const auto& d = g_.value(v).data->bytes;
    dev.copy_to_device(weights_base_ + static_cast<uint64_t>(off), d.data(), d.size());
  }
  for (size_t i = 0; i < kernels_.size(); ++i) {
    const PlacedKernel& p = placed_[i];
    for (size_t c = 0; c < kernels_[i].constants.size(); ++c) {
      const auto& bytes = kernels_[i].constants[c].bytes;
      if (!bytes.empty()) dev.copy_to_device(p.constant_addrs[c], bytes.data(), bytes.size());
    }
    dev.copy_to_device(p.stream.insn_byte_offset, p.stream.insn_bytes.data(),
                       p.stream.insn_bytes.size());
    if (!p.stream.uop_bytes.empty())
      dev.copy_to_device(p.stream.uop_byte_offset, p.stream.uop_bytes.data(),
                         p.stream.uop_bytes.size());
  }
}

std::string DeviceMap::describe() const {
  std::ostringstream o;
  o << "device memory: weights @0x" << std::hex << weights_base_ << ", biases @0x"
    << constants_base_ << ", arena @0x" << arena_base_ << ", programs @0x" << program_base_
    << ", end 0x" << total_ << std::dec;
  return o.str();
}

}  // namespace weft::rt::graph
