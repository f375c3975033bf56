// Program fetch and static validation; see program.h.
#include "simulator/common/program.h"

#include <algorithm>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/store_requant.h"
#include "simulator/common/program_error.h"
#include "simulator/common/tokens.h"

namespace weft::sim {

using isa::Insn;
using isa::MemType;
using isa::Opcode;

std::string describe(size_t index, const Insn& insn) {
  std::string s = "instruction " + std::to_string(index) + " (";
  const char* op = isa::opcode_name(insn.opcode);
  s += op ? op : "?";
  if (insn.op() == Opcode::kLoad || insn.op() == Opcode::kStore) {
    const char* m = isa::mem_type_name(insn.memory_type);
    s += std::string(" ") + (m ? m : "?");
  } else if (insn.op() == Opcode::kAlu) {
    const char* a = isa::alu_op_name(insn.alu_opcode);
    s += std::string(" ") + (a ? a : "?");
  }
  return s + ")";
}

namespace {

using isa::reg::ErrorBit;

[[noreturn]] void fail(size_t index, const Insn& insn, const std::string& what,
                       ErrorBit bit = isa::reg::kErrIllegalInsn) {
  throw ProgramError(bit, static_cast<int64_t>(index), describe(index, insn) + ": " + what);
}

void validate_deps(const Insn& insn, size_t index) {
  const isa::Module m = isa::route(insn);
  struct Flag {
    const char* name;
    int64_t value;
    bool prev;
  };
  for (const Flag& f : {Flag{"pop_prev_dep", insn.pop_prev_dep, true},
                        Flag{"pop_next_dep", insn.pop_next_dep, false},
                        Flag{"push_prev_dep", insn.push_prev_dep, true},
                        Flag{"push_next_dep", insn.push_next_dep, false}}) {
    if (f.value != 0 && !has_neighbour(m, f.prev)) {
      fail(index, insn,
           std::string("field '") + f.name + "' is set, but it runs on the " + isa::module_name(m) +
               " module, which has no " + (f.prev ? "previous" : "next") +
               " module to exchange tokens with");
    }
  }
}

void validate_mem(const isa::Layout& l, const Insn& insn, size_t index, uint64_t dram_bytes) {
  const MemType t = insn.mem();
  const bool is_load = insn.op() == Opcode::kLoad;
  if (is_load && t == MemType::kOut) {
    fail(index, insn,
         "field 'memory_type': LOAD cannot target OUT (the accumulator is loaded as ACC or "
         "ACC_8BIT)");
  }
  if (!is_load && t != MemType::kOut) {
    fail(index, insn,
         std::string("field 'memory_type': STORE reads only from OUT, not ") +
             isa::mem_type_name(insn.memory_type));
  }
  if (!is_load && l.config.options.has(isa::HwOption::kStoreRequant)) {
    // The pad fields carry the store's requantization (hardware/isa/store_requant.h).
    isa::StoreRequant rq;
    std::string why;
    if (!isa::decode_store_requant(insn, &rq, &why)) fail(index, insn, "store_requant: " + why);
  } else if (!is_load) {
    for (const auto& [name, v] : {std::pair<const char*, int64_t>{"y_pad_0", insn.y_pad_0},
                                  {"y_pad_1", insn.y_pad_1},
                                  {"x_pad_0", insn.x_pad_0},
                                  {"x_pad_1", insn.x_pad_1}}) {
      if (v != 0) {
        fail(index, insn,
             std::string("field '") + name + "' = " + std::to_string(v) +
                 ": STORE does not pad (all pads must be 0)");
      }
    }
  }
  if (insn.x_size == 0) return;  // a no-op that only moves tokens
  // A STORE's tile has no padding (with store_requant its pad fields mean something else).
  const int64_t rows = is_load ? insn.y_pad_0 + insn.y_size + insn.y_pad_1 : insn.y_size;
  const int64_t cols = is_load ? insn.x_pad_0 + insn.x_size + insn.x_pad_1 : insn.x_size;
  const int64_t depth = l.sram_depth(t);
  const char* buffer =
      t == MemType::kOut || t == MemType::kAcc8Bit ? "ACC" : isa::mem_type_name(insn.memory_type);
  if (insn.sram_base + rows * cols > depth) {
    fail(index, insn,
         "field 'sram_base': a " + std::to_string(rows) + "x" + std::to_string(cols) + " tile at " +
             std::to_string(insn.sram_base) + " ends at element " +
             std::to_string(insn.sram_base + rows * cols) + ", beyond the " + buffer +
             " buffer depth " + std::to_string(depth),
         isa::reg::kErrSramRange);
  }
  if (insn.y_size == 0) return;
  const uint64_t elem = static_cast<uint64_t>(l.elem_bytes(t));
  const uint64_t end_elem = static_cast<uint64_t>(insn.dram_base) +
                            static_cast<uint64_t>(insn.y_size - 1) * insn.x_stride +
                            static_cast<uint64_t>(insn.x_size);
  if (end_elem * elem > dram_bytes) {
    fail(index, insn,
         "field 'dram_base': rows of " + std::to_string(insn.x_size) + " elements at " +
             std::to_string(insn.dram_base) + " with x_stride " + std::to_string(insn.x_stride) +
             " end at byte " + std::to_string(end_elem * elem) + ", beyond the " +
             std::to_string(dram_bytes) + "-byte DRAM image",
         isa::reg::kErrDramRange);
  }
}

void validate_compute(const isa::Layout& l, const Insn& insn, size_t index) {
  if (insn.uop_end < insn.uop_bgn) {
    fail(index, insn,
         "field 'uop_end' = " + std::to_string(insn.uop_end) +
             " is less than uop_bgn = " + std::to_string(insn.uop_bgn));
  }
  if (insn.uop_end > l.uop_depth) {
    fail(index, insn,
         "field 'uop_end' = " + std::to_string(insn.uop_end) + " is beyond the UOP buffer depth " +
             std::to_string(l.uop_depth),
         isa::reg::kErrSramRange);
  }
}

}  // namespace

void validate_insn(const isa::Layout& l, const Insn& insn, size_t index, uint64_t dram_bytes) {
  validate_deps(insn, index);
  switch (insn.op()) {
    case Opcode::kLoad:
    case Opcode::kStore:
      validate_mem(l, insn, index, dram_bytes);
      break;
    case Opcode::kGemm:
    case Opcode::kAlu:
      validate_compute(l, insn, index);
      break;
    case Opcode::kFinish:
      break;
  }
}

std::vector<Insn> fetch_program(const isa::Layout& l, const std::vector<uint8_t>& dram,
                                uint64_t insn_offset, uint64_t insn_count) {
  using isa::reg::kErrDramRange;
  using isa::reg::kErrIllegalInsn;
  const int64_t none = ProgramError::kNoInsn;
  if (insn_count == 0) {
    throw ProgramError(kErrIllegalInsn, none,
                       "the instruction count is 0: a program needs at least FINISH");
  }
  if (insn_offset % isa::kInsnBytes != 0) {
    throw ProgramError(kErrIllegalInsn, none,
                       "the instruction offset " + std::to_string(insn_offset) +
                           " is not a multiple of the 16-byte instruction size");
  }
  if (insn_count > (dram.size() - std::min<uint64_t>(dram.size(), insn_offset)) / isa::kInsnBytes) {
    throw ProgramError(kErrDramRange, none,
                       "instructions [" + std::to_string(insn_offset) + ", " +
                           std::to_string(insn_offset + insn_count * isa::kInsnBytes) +
                           ") lie beyond the " + std::to_string(dram.size()) + "-byte DRAM image");
  }
  std::vector<Insn> program;
  program.reserve(insn_count);
  int64_t finish_at = -1;
  static const std::string kUnnamed;  // a message names the instruction: decoded again below
  for (uint64_t i = 0; i < insn_count; ++i) {
    const uint8_t* bytes = dram.data() + insn_offset + i * isa::kInsnBytes;
    try {
      program.push_back(isa::decode_insn(l, bytes, kUnnamed));
    } catch (const ProgramError&) {
      throw;
    } catch (const UserError&) {
      try {
        isa::decode_insn(l, bytes, "instruction " + std::to_string(i));
      } catch (const ProgramError&) {
        throw;
      } catch (const UserError& e) {
        throw ProgramError(kErrIllegalInsn, static_cast<int64_t>(i), e.what());
      }
      throw InternalError("instruction " + std::to_string(i) + " decoded on the second try");
    }
    if (finish_at >= 0) {
      throw ProgramError(kErrIllegalInsn, static_cast<int64_t>(i),
                         describe(i, program[i]) + " follows FINISH (instruction " +
                             std::to_string(finish_at) + "): FINISH must be the last instruction");
    }
    validate_insn(l, program[i], i, dram.size());
    if (program[i].op() == Opcode::kFinish) finish_at = static_cast<int64_t>(i);
  }
  if (finish_at < 0) {
    throw ProgramError(kErrIllegalInsn, none,
                       "the program has no FINISH instruction (" + std::to_string(insn_count) +
                           " instructions); the accelerator would never signal done");
  }
  return program;
}

}  // namespace weft::sim
