// The decoded forms of a Weft instruction and micro-op, and the names of opcodes, memory
// types and ALU operations. Every field is held as int64_t so that one table of
// pointer-to-members (layout.h) can encode, decode, print and parse all of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace weft::isa {

/// Instruction opcodes, bits [2:0].
enum class Opcode : int { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
/// Memory types of LOAD/STORE.
enum class MemType : int { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4, kAcc8Bit = 5 };
/// Tensor-ALU operations.
enum class AluOp : int { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

/// A decoded 128-bit instruction; only the fields of its opcode's format are meaningful.
struct Insn {
  int64_t opcode = 0;
  int64_t pop_prev_dep = 0, pop_next_dep = 0, push_prev_dep = 0, push_next_dep = 0;
  // LOAD / STORE
  int64_t memory_type = 0, sram_base = 0, dram_base = 0;
  int64_t y_size = 0, x_size = 0, x_stride = 0;
  int64_t y_pad_0 = 0, y_pad_1 = 0, x_pad_0 = 0, x_pad_1 = 0;
  // GEMM / ALU
  int64_t reset_reg = 0, uop_bgn = 0, uop_end = 0, iter_out = 0, iter_in = 0;
  int64_t dst_factor_out = 0, dst_factor_in = 0, src_factor_out = 0, src_factor_in = 0;
  int64_t wgt_factor_out = 0, wgt_factor_in = 0;  // GEMM only
  int64_t alu_opcode = 0, use_imm = 0, imm = 0;   // ALU only

  Opcode op() const { return static_cast<Opcode>(opcode); }
  MemType mem() const { return static_cast<MemType>(memory_type); }
  AluOp alu() const { return static_cast<AluOp>(alu_opcode); }
  bool operator==(const Insn& o) const;
};

/// A decoded 32-bit micro-op: indices into the accumulator, input (or accumulator, for ALU)
/// and weight buffers.
struct Uop {
  int64_t dst = 0, src = 0, wgt = 0;
  bool operator==(const Uop& o) const { return dst == o.dst && src == o.src && wgt == o.wgt; }
};

/// "LOAD", "STORE", "GEMM", "FINISH", "ALU"; nullptr for an unknown value.
const char* opcode_name(int64_t opcode);
/// "UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT"; nullptr for an unknown value.
const char* mem_type_name(int64_t memory_type);
/// "MIN", "MAX", "ADD", "SHR", "MUL"; nullptr for an unknown value.
const char* alu_op_name(int64_t alu_opcode);

/// Inverse lookups, case-insensitive; empty when the name is unknown.
std::optional<int64_t> opcode_from_name(const std::string& name);
std::optional<int64_t> mem_type_from_name(const std::string& name);
std::optional<int64_t> alu_op_from_name(const std::string& name);

/// The module an instruction runs on (DESIGN.md §3 routing).
enum class Module : int { kLoad = 0, kCompute = 1, kStore = 2 };
/// "load", "compute", "store".
const char* module_name(Module m);
/// Routing: LOAD INP/WGT -> load; other LOADs, GEMM, ALU, FINISH -> compute; STORE -> store.
Module route(const Insn& insn);

}  // namespace weft::isa
