// The device memory map of a compiled network: from address 0 the accelerator's weights (the
// memory plan's weight region, packed once), every kernel's constants (bias and shift tiles,
// bias_gemm's blocks; compiler/graph/lower/kernel_constants.h), the activation arena of the
// memory plan, then every kernel's instructions and micro-ops. A kernel's instruction stream
// is built here, once, with each DRAM tensor it names placed at its address: the graph values
// at theirs in the weight region or arena, its constants at theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/lower/accel_kernel.h"
#include "compiler/graph/passes/plan_memory.h"
#include "driver/device.h"
#include "hardware/isa/layout.h"
#include "runtime/stream/stream_builder.h"

namespace weft::rt::graph {

/// A kernel where the map put it.
struct PlacedKernel {
  std::vector<uint64_t> constant_addrs;  // byte addresses of AccelKernel::constants, in order
  Program stream;                        // instructions and micro-ops at their addresses
  uint64_t insn_addr = 0, insn_count = 0;
};

class DeviceMap {
 public:
  /// Lays out `g` (with its memory `plan`) and `kernels` for `layout`; `g`, `plan` and
  /// `kernels` must outlive the map. UserError when a kernel names a tensor it cannot place.
  DeviceMap(const compiler::graph::Graph& g, const compiler::graph::passes::MemoryPlan& plan,
            const std::vector<compiler::graph::AccelKernel>& kernels, const isa::Layout& layout);

  /// The byte address of a device value: a weight in the weight region, else in the arena.
  uint64_t addr(compiler::graph::ValueId v) const;
  const PlacedKernel& kernel(size_t i) const { return placed_.at(i); }
  /// Where each region starts, and the bytes of device memory the network needs.
  uint64_t constants_base() const { return constants_base_; }
  uint64_t arena_base() const { return arena_base_; }
  uint64_t program_base() const { return program_base_; }
  uint64_t total() const { return total_; }
  /// Copies the weights, the constants and the programs to `dev` (allocated from address 0).
  void upload(driver::Device& dev) const;
  /// "device memory: weights @0x0, biases @0x..., arena @0x..., programs @0x..., end 0x...".
  std::string describe() const;

 private:
  const compiler::graph::Graph& g_;
  const compiler::graph::passes::MemoryPlan& plan_;
  const std::vector<compiler::graph::AccelKernel>& kernels_;
  std::vector<PlacedKernel> placed_;
  uint64_t weights_base_ = 0, constants_base_ = 0, arena_base_ = 0, program_base_ = 0, total_ = 0;
};

}  // namespace weft::rt::graph
