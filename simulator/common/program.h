// Fetching and checking a program before any engine runs it: decoding the instructions out
// of the DRAM image, and every check that does not depend on data (fields, on-chip and DRAM
// ranges, dependency flags a module cannot honour, FINISH placement). Every engine calls this
// first so that all of them reject a bad program with the same message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::sim {

/// "instruction 5 (LOAD INP)": how every error names an instruction.
std::string describe(size_t index, const isa::Insn& insn);

/// Decodes `insn_count` instructions at byte `insn_offset` of the image and validates them.
/// Throws UserError naming the instruction index and field on the first problem.
std::vector<isa::Insn> fetch_program(const isa::Layout& l, const std::vector<uint8_t>& dram,
                                     uint64_t insn_offset, uint64_t insn_count);

/// The data-independent checks of one instruction against the layout and the image size.
void validate_insn(const isa::Layout& l, const isa::Insn& insn, size_t index, uint64_t dram_bytes);

}  // namespace weft::sim
