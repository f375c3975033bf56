// Instruction semantics of the functional model, one function per instruction kind. Each
// reads and writes the on-chip buffers and the DRAM image and adds to the VTA counters;
// ranges that depend only on fields were checked by fetch_program, micro-op indices are
// checked here.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "simulator/common/stats.h"
#include "simulator/functional/buffers.h"

namespace weft::sim {

/// LOAD of any memory type into its buffer, with zero padding.
void exec_load(const isa::Layout& l, const isa::Insn& insn, const std::vector<uint8_t>& dram,
               OnChipBuffers& buf, VtaCounters& c);
/// STORE OUT: narrows accumulator rows to int8 into DRAM (truncation, or with the
/// store_requant option the STORE's requantization).
void exec_store(const isa::Layout& l, const isa::Insn& insn, std::vector<uint8_t>& dram,
                const OnChipBuffers& buf, VtaCounters& c);
/// GEMM (or accumulator reset) over the micro-op range and both loop levels; throws
/// RunCancelled when `cancel` is set during a long loop.
void exec_gemm(const isa::Layout& l, const isa::Insn& insn, size_t index, OnChipBuffers& buf,
               VtaCounters& c, const std::atomic<bool>* cancel = nullptr);
/// Tensor-ALU operation over the micro-op range and both loop levels.
void exec_alu(const isa::Layout& l, const isa::Insn& insn, size_t index, OnChipBuffers& buf,
              VtaCounters& c, const std::atomic<bool>* cancel = nullptr);

/// One lane of the tensor ALU: op(a, b) with VTA's wrap, sign and shift rules.
int32_t alu_lane(isa::AluOp op, int32_t a, int32_t b);

}  // namespace weft::sim
