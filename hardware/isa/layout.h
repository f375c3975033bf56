// Derives everything that follows from a configuration: element sizes, buffer depths and the
// position and width of every instruction and micro-op field. The packing rule is VTA's:
// fields are laid out in a fixed order from bit 0, a field that would straddle bit 64 starts
// at bit 64 instead, and a configuration whose fields do not fit is rejected naming the field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/spec.h"

namespace weft::isa {

/// One field of an instruction or micro-op format.
struct Field {
  std::string name;  // VTA's field name, used by disasm --json and the assembler
  int lsb = 0;
  int width = 0;
  bool is_signed = false;
  int64_t Insn::*insn_member = nullptr;  // set for instruction fields
  int64_t Uop::*uop_member = nullptr;    // set for micro-op fields

  int msb() const { return lsb + width - 1; }
  int64_t min_value() const { return is_signed ? -(int64_t{1} << (width - 1)) : 0; }
  int64_t max_value() const {
    return is_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
  }
};

/// The ordered fields of one format (MEM, GEMM, ALU, FINISH or UOP).
struct Format {
  std::string name;
  int total_bits = 0;  // 128 for instructions, 32 for micro-ops
  std::vector<Field> fields;
  /// The field of that name, or nullptr.
  const Field* find(const std::string& field_name) const;
};

/// A configuration together with everything derived from it.
struct Layout {
  HwConfig config;
  // Bytes of one element of each memory type, as stored in DRAM (UOP: 4).
  int uop_elem_bytes = 4;
  int inp_elem_bytes = 0, wgt_elem_bytes = 0, acc_elem_bytes = 0, out_elem_bytes = 0;
  int acc8_elem_bytes = 0;  // ACC_8BIT: one int8 per accumulator lane
  // Depth (elements) of each on-chip buffer and log2 of it.
  int64_t uop_depth = 0, inp_depth = 0, wgt_depth = 0, acc_depth = 0;
  int log_uop_depth = 0, log_inp_depth = 0, log_wgt_depth = 0, log_acc_depth = 0;
  Format mem, gemm, alu, finish, uop;

  /// DRAM bytes of one element of a memory type.
  int elem_bytes(MemType t) const;
  /// Depth of the on-chip buffer a memory type lands in (ACC, ACC_8BIT, OUT: the accumulator).
  int64_t sram_depth(MemType t) const;
  /// The format of an opcode; nullptr for an unknown opcode.
  const Format* format_of(int64_t opcode) const;
  /// MACs per GEMM micro-op (BATCH x BLOCK_IN x BLOCK_OUT).
  int64_t macs_per_uop() const {
    return int64_t{config.batch()} * config.block_in() * config.block_out();
  }
};

/// Validates a configuration and derives its layout. Throws UserError naming the offending
/// parameter or field (a buffer that is not a power of two, a field beyond 128 bits, ...).
Layout derive_layout(const HwConfig& config);

/// The derived layout of a shipped configuration by name, or of a configuration file (a value
/// ending in .json or containing '/'; config_file.h), cached for the process: the one place a
/// `--config` value becomes a configuration, so every tool takes either. Throws UserError for
/// an unknown name, a bad file (naming the file and field), or a file that gives a shipped
/// name, or the name of another loaded file, to different hardware.
const Layout& layout_for(const std::string& name_or_file);

}  // namespace weft::isa
