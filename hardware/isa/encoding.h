// Binary encoding of instructions (128 bits, two little-endian 64-bit words) and micro-ops
// (32 bits) for a derived Layout, with range checks that name the offending field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::isa {

/// Bytes of one encoded instruction and of one micro-op.
inline constexpr int kInsnBytes = 16;
inline constexpr int kUopBytes = 4;

/// Encodes one instruction into 16 bytes at `out`. Throws UserError when the opcode is
/// unknown or a field's value does not fit its width; `where` prefixes the message
/// (e.g. "instruction 3").
void encode_insn(const Layout& l, const Insn& insn, uint8_t* out, const std::string& where);

/// Whether encode_insn / encode_uop accept it (a known opcode, every field within its width):
/// a caller that encodes many builds their `where` message only for one that does not.
bool insn_fits(const Layout& l, const Insn& insn);
bool uop_fits(const Layout& l, const Uop& uop);

/// Decodes 16 bytes. Throws UserError for an unknown opcode, memory type or ALU opcode,
/// naming `where` and the field.
Insn decode_insn(const Layout& l, const uint8_t* in, const std::string& where);

/// Encodes a micro-op into 4 bytes; throws UserError when an index does not fit its field.
void encode_uop(const Layout& l, const Uop& uop, uint8_t* out, const std::string& where);
/// Decodes a 4-byte micro-op.
Uop decode_uop(const Layout& l, const uint8_t* in);

/// Encodes a whole program (16 bytes per instruction); errors name "instruction N".
std::vector<uint8_t> encode_program(const Layout& l, const std::vector<Insn>& program);
/// Decodes a whole binary; its size must be a multiple of 16 bytes.
std::vector<Insn> decode_program(const Layout& l, const std::vector<uint8_t>& bytes,
                                 const std::string& source);

/// Reads the field of an instruction through the layout's member pointer.
inline int64_t get(const Insn& insn, const Field& f) { return insn.*(f.insn_member); }

}  // namespace weft::isa
