// The constant tensors an accelerator kernel reads besides the graph's values, packed in the
// layouts the conv2d operator loads them in (compiler/ops/conv2d.h): the bias tile
// B[ocb][BATCH][BLOCK_OUT] (int32, each channel's value over the batch rows), the per-channel
// shift tile S[ocb][BATCH][BLOCK_OUT] (int8; padding channels shift 0), and bias_gemm's
// constant input block and bias weight blocks (compiler/passes/bias_gemm.h).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"
#include "hardware/isa/layout.h"

namespace weft::compiler::graph {

/// A constant a kernel reads, with its bytes and where the device memory map may put it.
struct KernelConstant {
  ir::Buffer buffer;           // the operator's DRAM tensor
  std::vector<uint8_t> bytes;  // its packed contents
  int elem_bytes = 1;          // the unit of its memory type's DRAM addresses
  uint64_t alignment = 4096;   // of its byte address
};

/// The bias tile of `oc` biases (none: an empty tile) for `ocb` output channel blocks.
std::vector<uint8_t> pack_bias_tile(const isa::Layout& l, const int32_t* bias, int64_t oc,
                                    int64_t ocb);
/// The shift tile of `lane` (one amount per output channel) for `ocb` output channel blocks.
std::vector<uint8_t> pack_shift_tile(const isa::Layout& l, const std::vector<int8_t>& lane,
                                     int64_t ocb);

}  // namespace weft::compiler::graph
