// Bit packing of instructions and micro-ops; see encoding.h.
#include "hardware/isa/encoding.h"

#include <cstring>

#include "hardware/isa/errors.h"

namespace weft::isa {

namespace {

uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store_le64(uint64_t v, uint8_t* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t mask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

void check_fits(const Field& f, int64_t v, const std::string& where, const char* kind) {
  if (v < f.min_value() || v > f.max_value()) {
    throw UserError(where + ": " + kind + " field '" + f.name + "' = " + std::to_string(v) +
                    " does not fit its " + std::to_string(f.width) + " bits (range " +
                    std::to_string(f.min_value()) + ".." + std::to_string(f.max_value()) + ")");
  }
}

// Fields never straddle bit 64 (layout.cc guarantees it), so each lives in one word.
void put_field(uint64_t* words, const Field& f, int64_t v) {
  const int word = f.lsb / 64;
  const int shift = f.lsb % 64;
  words[word] |= (static_cast<uint64_t>(v) & mask(f.width)) << shift;
}

int64_t get_field(const uint64_t* words, const Field& f) {
  const int word = f.lsb / 64;
  const int shift = f.lsb % 64;
  uint64_t raw = (words[word] >> shift) & mask(f.width);
  if (f.is_signed && (raw >> (f.width - 1)) & 1) raw |= ~mask(f.width);
  return static_cast<int64_t>(raw);
}

}  // namespace

void encode_insn(const Layout& l, const Insn& insn, uint8_t* out, const std::string& where) {
  const Format* fmt = l.format_of(insn.opcode);
  if (fmt == nullptr) {
    throw UserError(where + ": unknown opcode " + std::to_string(insn.opcode) +
                    " (field 'opcode'; known: LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)");
  }
  uint64_t words[2] = {0, 0};
  for (const Field& f : fmt->fields) {
    const int64_t v = get(insn, f);
    check_fits(f, v, where, fmt->name.c_str());
    put_field(words, f, v);
  }
  store_le64(words[0], out);
  store_le64(words[1], out + 8);
}

bool insn_fits(const Layout& l, const Insn& insn) {
  const Format* fmt = l.format_of(insn.opcode);
  if (fmt == nullptr) return false;
  for (const Field& f : fmt->fields) {
    const int64_t v = get(insn, f);
    if (v < f.min_value() || v > f.max_value()) return false;
  }
  return true;
}

bool uop_fits(const Layout& l, const Uop& uop) {
  for (const Field& f : l.uop.fields) {
    const int64_t v = uop.*(f.uop_member);
    if (v < f.min_value() || v > f.max_value()) return false;
  }
  return true;
}

Insn decode_insn(const Layout& l, const uint8_t* in, const std::string& where) {
  const uint64_t words[2] = {load_le64(in), load_le64(in + 8)};
  Insn insn;
  insn.opcode = static_cast<int64_t>(words[0] & mask(IsaConstants::kOpcodeBits));
  const Format* fmt = l.format_of(insn.opcode);
  if (fmt == nullptr) {
    throw UserError(where + ": unknown opcode " + std::to_string(insn.opcode) +
                    " in field 'opcode' (bits [2:0])");
  }
  for (const Field& f : fmt->fields) insn.*(f.insn_member) = get_field(words, f);
  if (fmt == &l.mem && mem_type_name(insn.memory_type) == nullptr) {
    const Field& f = *l.mem.find("memory_type");
    throw UserError(where + ": unknown memory type " + std::to_string(insn.memory_type) +
                    " in field 'memory_type' (bits [" + std::to_string(f.msb()) + ":" +
                    std::to_string(f.lsb) + "])");
  }
  if (fmt == &l.alu && alu_op_name(insn.alu_opcode) == nullptr) {
    const Field& f = *l.alu.find("alu_opcode");
    throw UserError(where + ": unknown ALU opcode " + std::to_string(insn.alu_opcode) +
                    " in field 'alu_opcode' (bits [" + std::to_string(f.msb()) + ":" +
                    std::to_string(f.lsb) + "])");
  }
  return insn;
}

void encode_uop(const Layout& l, const Uop& uop, uint8_t* out, const std::string& where) {
  uint64_t words[2] = {0, 0};
  for (const Field& f : l.uop.fields) {
    const int64_t v = uop.*(f.uop_member);
    check_fits(f, v, where, "UOP");
    put_field(words, f, v);
  }
  const uint32_t w = static_cast<uint32_t>(words[0]);
  std::memcpy(out, &w, 4);  // little-endian host (checked in CMake)
}

Uop decode_uop(const Layout& l, const uint8_t* in) {
  uint32_t w;
  std::memcpy(&w, in, 4);
  const uint64_t words[2] = {w, 0};
  Uop uop;
  for (const Field& f : l.uop.fields) uop.*(f.uop_member) = get_field(words, f);
  return uop;
}

std::vector<uint8_t> encode_program(const Layout& l, const std::vector<Insn>& program) {
  std::vector<uint8_t> out(program.size() * kInsnBytes);
  for (size_t i = 0; i < program.size(); ++i) {
    encode_insn(l, program[i], out.data() + i * kInsnBytes, "instruction " + std::to_string(i));
  }
  return out;
}

std::vector<Insn> decode_program(const Layout& l, const std::vector<uint8_t>& bytes,
                                 const std::string& source) {
  if (bytes.size() % kInsnBytes != 0) {
    throw UserError(source + ": size " + std::to_string(bytes.size()) +
                    " bytes is not a multiple of the 16-byte instruction size");
  }
  std::vector<Insn> program(bytes.size() / kInsnBytes);
  for (size_t i = 0; i < program.size(); ++i) {
    program[i] = decode_insn(l, bytes.data() + i * kInsnBytes,
                             source + ": instruction " + std::to_string(i));
  }
  return program;
}

}  // namespace weft::isa
