// The text assembly format and the JSON-lines form of instructions (docs/isa.md). Both are
// printed by `weft disasm` and read back by `weft asm`; they round-trip exactly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::isa {

/// One line of assembly for an instruction, e.g.
/// "LOAD INP sram_base=0 dram_base=64 y_size=1 x_size=8 x_stride=8 push_next_dep".
std::string format_insn(const Layout& l, const Insn& insn);

/// The JSON object of an instruction with VTA's field names, in encoding order; enumerations
/// are written as names ("opcode": "LOAD", "memory_type": "INP", "alu_opcode": "ADD").
nlohmann::ordered_json insn_to_json(const Layout& l, const Insn& insn);

/// Parses one JSON object (names or numbers accepted for enumerations). Throws UserError
/// prefixed by `where` for unknown keys, bad values and fields that do not fit.
Insn insn_from_json(const Layout& l, const nlohmann::json& j, const std::string& where);

/// Parses one text line (without comment). Values are decimal or 0x hex (a leading 0 is not
/// octal; '-' only for imm). Throws UserError prefixed by `where`, also for a field given twice.
Insn parse_insn(const Layout& l, const std::string& line, const std::string& where);

/// Parses a whole source: text lines and JSON lines may be mixed; '#' starts a comment (on a
/// JSON line, after its closing brace); blank lines are skipped. Errors name `source_name:LINE`.
std::vector<Insn> parse_program(const Layout& l, const std::string& text,
                                const std::string& source_name);

/// One line of micro-op assembly: "UOP dst=0 src=1 wgt=2".
std::string format_uop(const Uop& uop);

/// Parses micro-op lines ("UOP dst=N src=N wgt=N", omitted indices are 0; '#' comments).
/// Errors name `source_name:LINE` and the field that does not fit.
std::vector<Uop> parse_uops(const Layout& l, const std::string& text,
                            const std::string& source_name);

}  // namespace weft::isa
