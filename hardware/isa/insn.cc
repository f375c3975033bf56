// Names of the ISA's enumerations and the routing rule of DESIGN.md §3.
#include "hardware/isa/insn.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace weft::isa {

bool Insn::operator==(const Insn& o) const {
  return opcode == o.opcode && pop_prev_dep == o.pop_prev_dep && pop_next_dep == o.pop_next_dep &&
         push_prev_dep == o.push_prev_dep && push_next_dep == o.push_next_dep &&
         memory_type == o.memory_type && sram_base == o.sram_base && dram_base == o.dram_base &&
         y_size == o.y_size && x_size == o.x_size && x_stride == o.x_stride &&
         y_pad_0 == o.y_pad_0 && y_pad_1 == o.y_pad_1 && x_pad_0 == o.x_pad_0 &&
         x_pad_1 == o.x_pad_1 && reset_reg == o.reset_reg && uop_bgn == o.uop_bgn &&
         uop_end == o.uop_end && iter_out == o.iter_out && iter_in == o.iter_in &&
         dst_factor_out == o.dst_factor_out && dst_factor_in == o.dst_factor_in &&
         src_factor_out == o.src_factor_out && src_factor_in == o.src_factor_in &&
         wgt_factor_out == o.wgt_factor_out && wgt_factor_in == o.wgt_factor_in &&
         alu_opcode == o.alu_opcode && use_imm == o.use_imm && imm == o.imm;
}

namespace {
constexpr std::array<const char*, 5> kOpcodeNames = {"LOAD", "STORE", "GEMM", "FINISH", "ALU"};
constexpr std::array<const char*, 6> kMemTypeNames = {"UOP", "WGT", "INP",
                                                      "ACC", "OUT", "ACC_8BIT"};
constexpr std::array<const char*, 5> kAluOpNames = {"MIN", "MAX", "ADD", "SHR", "MUL"};

template <size_t N>
const char* name_of(const std::array<const char*, N>& names, int64_t v) {
  return v >= 0 && v < static_cast<int64_t>(N) ? names[v] : nullptr;
}

template <size_t N>
std::optional<int64_t> index_of(const std::array<const char*, N>& names, std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}
}  // namespace

const char* opcode_name(int64_t v) { return name_of(kOpcodeNames, v); }
const char* mem_type_name(int64_t v) { return name_of(kMemTypeNames, v); }
const char* alu_op_name(int64_t v) { return name_of(kAluOpNames, v); }
std::optional<int64_t> opcode_from_name(const std::string& n) { return index_of(kOpcodeNames, n); }
std::optional<int64_t> mem_type_from_name(const std::string& n) {
  return index_of(kMemTypeNames, n);
}
std::optional<int64_t> alu_op_from_name(const std::string& n) { return index_of(kAluOpNames, n); }

const char* module_name(Module m) {
  switch (m) {
    case Module::kLoad:
      return "load";
    case Module::kCompute:
      return "compute";
    case Module::kStore:
      return "store";
  }
  return "?";
}

Module route(const Insn& insn) {
  switch (insn.op()) {
    case Opcode::kLoad:
      return insn.mem() == MemType::kInp || insn.mem() == MemType::kWgt ? Module::kLoad
                                                                        : Module::kCompute;
    case Opcode::kStore:
      return Module::kStore;
    default:
      return Module::kCompute;
  }
}

}  // namespace weft::isa
