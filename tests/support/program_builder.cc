// DRAM image layout for simulator tests; see program_builder.h.
#include "tests/support/program_builder.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "hardware/isa/encoding.h"

namespace weft::test {

using isa::Insn;
using isa::MemType;
using isa::Opcode;

namespace {

void set_deps(Insn& insn, Deps deps) {
  insn.pop_prev_dep = deps.pop_prev;
  insn.pop_next_dep = deps.pop_next;
  insn.push_prev_dep = deps.push_prev;
  insn.push_next_dep = deps.push_next;
}

Insn compute_insn(Opcode op, int64_t uop_bgn, int64_t uop_end, const Loops& loops, Deps deps) {
  Insn insn;
  insn.opcode = static_cast<int64_t>(op);
  set_deps(insn, deps);
  insn.uop_bgn = uop_bgn;
  insn.uop_end = uop_end;
  insn.iter_out = loops.iter_out;
  insn.iter_in = loops.iter_in;
  insn.dst_factor_out = loops.dst_out;
  insn.dst_factor_in = loops.dst_in;
  insn.src_factor_out = loops.src_out;
  insn.src_factor_in = loops.src_in;
  if (op == Opcode::kGemm) {
    insn.wgt_factor_out = loops.wgt_out;
    insn.wgt_factor_in = loops.wgt_in;
  }
  return insn;
}

}  // namespace

uint8_t* Program::insn_bytes(size_t index) {
  if (index >= insn_count) throw std::out_of_range("Program::insn_bytes: no such instruction");
  return dram.data() + insn_offset + index * isa::kInsnBytes;
}

void Program::set_insn_bits(size_t index, int lsb, int width, uint64_t value) {
  if (width <= 0 || lsb / 64 != (lsb + width - 1) / 64) {
    throw std::invalid_argument("Program::set_insn_bits: range straddles bit 64");
  }
  uint8_t* p = insn_bytes(index) + (lsb / 64) * 8;
  uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | p[i];
  const uint64_t mask = (width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1) << (lsb % 64);
  word = (word & ~mask) | ((value << (lsb % 64)) & mask);
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(word >> (8 * i));
}

std::vector<uint8_t> Program::bytes(MemType t, int64_t elem, int64_t count) const {
  const uint64_t eb = static_cast<uint64_t>(layout->elem_bytes(t));
  const uint64_t begin = static_cast<uint64_t>(elem) * eb;
  const uint64_t end = begin + static_cast<uint64_t>(count) * eb;
  if (end > dram.size()) throw std::out_of_range("Program::bytes: beyond the image");
  return std::vector<uint8_t>(dram.begin() + begin, dram.begin() + end);
}

std::vector<int8_t> Program::int8s(MemType t, int64_t elem, int64_t count) const {
  const std::vector<uint8_t> raw = bytes(t, elem, count);
  return std::vector<int8_t>(raw.begin(), raw.end());
}

std::vector<int32_t> Program::int32s(int64_t elem, int64_t count) const {
  const std::vector<uint8_t> raw = bytes(MemType::kAcc, elem, count);
  std::vector<int32_t> lanes(raw.size() / 4);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const uint32_t v = uint32_t{raw[4 * i]} | uint32_t{raw[4 * i + 1]} << 8 |
                       uint32_t{raw[4 * i + 2]} << 16 | uint32_t{raw[4 * i + 3]} << 24;
    lanes[i] = static_cast<int32_t>(v);
  }
  return lanes;
}

ProgramBuilder::ProgramBuilder(const isa::Layout& layout) : l_(layout) {}

uint8_t* ProgramBuilder::grow_to(uint64_t end_byte) {
  if (data_.size() < end_byte) data_.resize(end_byte, 0);
  return data_.data();
}

int64_t ProgramBuilder::alloc(MemType t, int64_t count) {
  const uint64_t eb = static_cast<uint64_t>(l_.elem_bytes(t));
  const int64_t elem = static_cast<int64_t>((data_.size() + eb - 1) / eb);
  grow_to((static_cast<uint64_t>(elem) + static_cast<uint64_t>(count)) * eb);
  return elem;
}

void ProgramBuilder::put_bytes(MemType t, int64_t elem, const std::vector<uint8_t>& bytes) {
  const uint64_t begin = static_cast<uint64_t>(elem) * static_cast<uint64_t>(l_.elem_bytes(t));
  uint8_t* base = grow_to(begin + bytes.size());
  if (!bytes.empty()) std::memcpy(base + begin, bytes.data(), bytes.size());
}

void ProgramBuilder::put_int8(MemType t, int64_t elem, const std::vector<int8_t>& values) {
  put_bytes(t, elem, std::vector<uint8_t>(values.begin(), values.end()));
}

void ProgramBuilder::put_int32(int64_t elem, const std::vector<int32_t>& lanes) {
  std::vector<uint8_t> raw(lanes.size() * 4);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const uint32_t v = static_cast<uint32_t>(lanes[i]);
    for (int b = 0; b < 4; ++b) raw[4 * i + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  put_bytes(MemType::kAcc, elem, raw);
}

void ProgramBuilder::put_uops(int64_t elem, const std::vector<isa::Uop>& uops) {
  std::vector<uint8_t> raw(uops.size() * isa::kUopBytes);
  for (size_t i = 0; i < uops.size(); ++i) {
    isa::encode_uop(l_, uops[i], raw.data() + i * isa::kUopBytes,
                    "test micro-op " + std::to_string(i));
  }
  put_bytes(MemType::kUop, elem, raw);
}

void ProgramBuilder::fill(MemType t, int64_t elem, int64_t count, uint8_t byte) {
  put_bytes(t, elem, std::vector<uint8_t>(static_cast<size_t>(count * l_.elem_bytes(t)), byte));
}

int64_t ProgramBuilder::add_int8(MemType t, const std::vector<int8_t>& values) {
  const int64_t eb = l_.elem_bytes(t);
  if (static_cast<int64_t>(values.size()) % eb != 0) {
    throw std::invalid_argument("ProgramBuilder::add_int8: not a whole number of elements");
  }
  const int64_t elem = alloc(t, static_cast<int64_t>(values.size()) / eb);
  put_int8(t, elem, values);
  return elem;
}

int64_t ProgramBuilder::add_int32(const std::vector<int32_t>& lanes) {
  const int64_t per_elem = l_.elem_bytes(MemType::kAcc) / 4;
  if (static_cast<int64_t>(lanes.size()) % per_elem != 0) {
    throw std::invalid_argument("ProgramBuilder::add_int32: not a whole number of elements");
  }
  const int64_t elem = alloc(MemType::kAcc, static_cast<int64_t>(lanes.size()) / per_elem);
  put_int32(elem, lanes);
  return elem;
}

int64_t ProgramBuilder::add_uops(const std::vector<isa::Uop>& uops) {
  const int64_t elem = alloc(MemType::kUop, static_cast<int64_t>(uops.size()));
  put_uops(elem, uops);
  return elem;
}

size_t ProgramBuilder::load(MemType t, int64_t sram_base, int64_t dram_base, int64_t y_size,
                            int64_t x_size, int64_t x_stride, Pads pads, Deps deps) {
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kLoad);
  set_deps(insn, deps);
  insn.memory_type = static_cast<int64_t>(t);
  insn.sram_base = sram_base;
  insn.dram_base = dram_base;
  insn.y_size = y_size;
  insn.x_size = x_size;
  insn.x_stride = x_stride;
  insn.y_pad_0 = pads.y0;
  insn.y_pad_1 = pads.y1;
  insn.x_pad_0 = pads.x0;
  insn.x_pad_1 = pads.x1;
  return this->insn(insn);
}

size_t ProgramBuilder::load_1d(MemType t, int64_t sram_base, int64_t dram_base, int64_t count,
                               Deps deps) {
  return load(t, sram_base, dram_base, 1, count, count, Pads{}, deps);
}

size_t ProgramBuilder::store(int64_t sram_base, int64_t dram_base, int64_t y_size, int64_t x_size,
                             int64_t x_stride, Deps deps) {
  const size_t index =
      load(MemType::kOut, sram_base, dram_base, y_size, x_size, x_stride, Pads{}, deps);
  insns_[index].opcode = static_cast<int64_t>(Opcode::kStore);
  return index;
}

size_t ProgramBuilder::gemm(int64_t uop_bgn, int64_t uop_end, Loops loops, Deps deps) {
  return insn(compute_insn(Opcode::kGemm, uop_bgn, uop_end, loops, deps));
}

size_t ProgramBuilder::gemm_reset(int64_t uop_bgn, int64_t uop_end, Loops loops, Deps deps) {
  Insn insn = compute_insn(Opcode::kGemm, uop_bgn, uop_end, loops, deps);
  insn.reset_reg = 1;
  return this->insn(insn);
}

size_t ProgramBuilder::alu(isa::AluOp op, int64_t uop_bgn, int64_t uop_end, Loops loops,
                           Deps deps) {
  Insn insn = compute_insn(Opcode::kAlu, uop_bgn, uop_end, loops, deps);
  insn.alu_opcode = static_cast<int64_t>(op);
  return this->insn(insn);
}

size_t ProgramBuilder::alu_imm(isa::AluOp op, int64_t imm, int64_t uop_bgn, int64_t uop_end,
                               Loops loops, Deps deps) {
  Insn insn = compute_insn(Opcode::kAlu, uop_bgn, uop_end, loops, deps);
  insn.alu_opcode = static_cast<int64_t>(op);
  insn.use_imm = 1;
  insn.imm = imm;
  return this->insn(insn);
}

size_t ProgramBuilder::finish(Deps deps) {
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kFinish);
  set_deps(insn, deps);
  return this->insn(insn);
}

size_t ProgramBuilder::insn(const Insn& insn) {
  insns_.push_back(insn);
  return insns_.size() - 1;
}

Program ProgramBuilder::build() const {
  Program p;
  p.layout = &l_;
  p.insn_offset = (data_.size() + isa::kInsnBytes - 1) / isa::kInsnBytes * isa::kInsnBytes;
  p.insn_count = insns_.size();
  p.dram = data_;
  p.dram.resize(p.insn_offset + insns_.size() * isa::kInsnBytes, 0);
  for (size_t i = 0; i < insns_.size(); ++i) {
    isa::encode_insn(l_, insns_[i], p.dram.data() + p.insn_offset + i * isa::kInsnBytes,
                     "test instruction " + std::to_string(i));
  }
  return p;
}

}  // namespace weft::test
