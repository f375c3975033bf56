// The instruction-stream builder; see stream_builder.h. Token placement follows VTA's
// runtime: a push marks the last instruction its module was given, a pop waits in front of
// the next one, and no-ops (LOAD INP / STORE OUT with x_size 0, GEMM over no micro-ops) carry
// tokens only where no real instruction can.
#include "runtime/stream/stream_builder.h"

#include <algorithm>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

namespace weft::rt {

using isa::consumer;
using isa::kAllTokenQueues;
using isa::kNumTokenQueues;
using isa::pop_queue;
using isa::producer;
using isa::push_queue;
using isa::queue_between;
using isa::queue_name;
using isa::TokenQueue;

using isa::Insn;
using isa::MemType;
using isa::Module;
using isa::Opcode;

namespace {

int mi(Module m) { return static_cast<int>(m); }

std::string pair_name(Module from, Module to) {
  return std::string("(") + isa::module_name(from) + ", " + isa::module_name(to) + ")";
}

// The token flag member a push from `from` towards `to` (neighbours) sets.
int64_t Insn::*push_flag(Module from, Module to) {
  return mi(to) < mi(from) ? &Insn::push_prev_dep : &Insn::push_next_dep;
}

}  // namespace

void Program::place(std::vector<uint8_t>& dram) const {
  const uint64_t insn_end = insn_byte_offset + insn_bytes.size();
  const uint64_t uop_end = uop_byte_offset + uop_bytes.size();
  if (insn_end > dram.size() || uop_end > dram.size()) {
    throw UserError("Program::place: the program needs bytes up to " +
                    std::to_string(std::max(insn_end, uop_end)) + ", but the DRAM image has " +
                    std::to_string(dram.size()));
  }
  std::copy(insn_bytes.begin(), insn_bytes.end(), dram.begin() + insn_byte_offset);
  std::copy(uop_bytes.begin(), uop_bytes.end(), dram.begin() + uop_byte_offset);
}

StreamBuilder::StreamBuilder(const isa::Layout& layout) : l_(layout) {}

std::string StreamBuilder::where(size_t index, const Insn& insn) const {
  return "stream " + describe_insn(index, insn);
}

void StreamBuilder::check_open(const char* what) const {
  if (finished_) {
    throw UserError(std::string(what) +
                    ": the stream is already synchronized (it ends with FINISH); start a new "
                    "StreamBuilder for more work");
  }
}

void StreamBuilder::emit(Insn insn, bool relocate) {
  const Module m = isa::route(insn);
  auto& pending = pending_pop_[mi(m)];
  if (pending[0]) insn.pop_prev_dep = 1;
  if (pending[1]) insn.pop_next_dep = 1;
  const size_t index = insns_.size();
  uint8_t scratch[isa::kInsnBytes];
  if (!isa::insn_fits(l_, insn)) isa::encode_insn(l_, insn, scratch, where(index, insn));
  pending = {false, false};
  insns_.push_back(insn);
  relocate_.push_back(relocate);
  last_[mi(m)] = static_cast<int64_t>(index);
}

void StreamBuilder::emit_noop(Module m) {
  Insn insn;
  switch (m) {
    case Module::kLoad:
      insn.opcode = static_cast<int64_t>(Opcode::kLoad);
      insn.memory_type = static_cast<int64_t>(MemType::kInp);
      break;
    case Module::kCompute:
      insn.opcode = static_cast<int64_t>(Opcode::kGemm);
      insn.iter_out = 1;
      insn.iter_in = 1;
      break;
    case Module::kStore:
      insn.opcode = static_cast<int64_t>(Opcode::kStore);
      insn.memory_type = static_cast<int64_t>(MemType::kOut);
      break;
  }
  emit(insn);
}

void StreamBuilder::load_2d(MemType type, int64_t sram_base, int64_t dram_base, int64_t y_size,
                            int64_t x_size, int64_t x_stride, Pads pads) {
  check_open("load_2d");
  if (type == MemType::kOut) {
    throw UserError("load_2d: LOAD cannot target OUT (load the accumulator as ACC or ACC_8BIT)");
  }
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kLoad);
  insn.memory_type = static_cast<int64_t>(type);
  insn.sram_base = sram_base;
  insn.dram_base = dram_base;
  insn.y_size = y_size;
  insn.x_size = x_size;
  insn.x_stride = x_stride;
  insn.y_pad_0 = pads.y0;
  insn.y_pad_1 = pads.y1;
  insn.x_pad_0 = pads.x0;
  insn.x_pad_1 = pads.x1;
  uint8_t scratch[isa::kInsnBytes];
  if (!isa::insn_fits(l_, insn))
    isa::encode_insn(l_, insn, scratch, "load_2d: " + where(insns_.size(), insn));
  if (x_size > 0) {
    const int64_t rows = pads.y0 + y_size + pads.y1, cols = pads.x0 + x_size + pads.x1;
    const int64_t depth = l_.sram_depth(type);
    if (sram_base + rows * cols > depth) {
      const char* buffer = type == MemType::kAcc8Bit ? "ACC" : isa::mem_type_name(insn.memory_type);
      throw UserError("load_2d: " + where(insns_.size(), insn) + ": a " + std::to_string(rows) +
                      "x" + std::to_string(cols) + " tile at sram_base " +
                      std::to_string(sram_base) + " ends at element " +
                      std::to_string(sram_base + rows * cols) + ", beyond the " + buffer +
                      " buffer depth " + std::to_string(depth));
    }
  }
  if (type == MemType::kUop) {
    // The caller overwrites micro-op buffer entries: forget every cached kernel.
    resident_.clear();
    uop_top_ = 0;
  }
  emit(insn);
}

void StreamBuilder::store_2d(int64_t sram_base, int64_t dram_base, int64_t y_size, int64_t x_size,
                             int64_t x_stride, const isa::StoreRequant& requant) {
  check_open("store_2d");
  if (requant.on && !l_.config.options.has(isa::HwOption::kStoreRequant)) {
    throw UserError("store_2d: a requantizing STORE needs the hardware option store_requant, "
                    "which configuration '" + l_.config.name + "' does not have");
  }
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kStore);
  insn.memory_type = static_cast<int64_t>(MemType::kOut);
  insn.sram_base = sram_base;
  insn.dram_base = dram_base;
  insn.y_size = y_size;
  insn.x_size = x_size;
  insn.x_stride = x_stride;
  isa::set_store_requant(insn, requant);
  uint8_t scratch[isa::kInsnBytes];
  if (!isa::insn_fits(l_, insn))
    isa::encode_insn(l_, insn, scratch, "store_2d: " + where(insns_.size(), insn));
  if (x_size > 0 && sram_base + y_size * x_size > l_.acc_depth) {
    throw UserError("store_2d: " + where(insns_.size(), insn) + ": " + std::to_string(y_size) +
                    "x" + std::to_string(x_size) + " elements at sram_base " +
                    std::to_string(sram_base) + " end at element " +
                    std::to_string(sram_base + y_size * x_size) + ", beyond the ACC buffer depth " +
                    std::to_string(l_.acc_depth));
  }
  emit(insn);
}

void StreamBuilder::fill_loops(Insn& insn, const UopKernel& k) const {
  insn.iter_out = k.iter_out;
  insn.iter_in = k.iter_in;
  insn.dst_factor_out = k.dst_factor_out;
  insn.dst_factor_in = k.dst_factor_in;
  insn.src_factor_out = k.src_factor_out;
  insn.src_factor_in = k.src_factor_in;
  if (insn.op() == Opcode::kGemm) {
    insn.wgt_factor_out = k.wgt_factor_out;
    insn.wgt_factor_in = k.wgt_factor_in;
  }
}

// Checks a kernel against the buffers. The instruction's fields (factors, iterations) were
// checked by encoding first, so they are non-negative and small.
void StreamBuilder::check_kernel(const UopKernel& k, bool is_gemm, bool use_imm,
                                 const char* what) const {
  const std::string w = what;
  if (k.uops.empty()) throw UserError(w + ": the kernel has no micro-ops");
  if (static_cast<int64_t>(k.uops.size()) > l_.uop_depth) {
    throw UserError(w + ": the kernel has " + std::to_string(k.uops.size()) +
                    " micro-ops, more than the micro-op buffer holds (" +
                    std::to_string(l_.uop_depth) + " in " + l_.config.name + ")");
  }
  if (k.iter_out < 1 || k.iter_in < 1) {
    throw UserError(w + ": iter_out = " + std::to_string(k.iter_out) +
                    " and iter_in = " + std::to_string(k.iter_in) + " must both be at least 1");
  }
  if (!is_gemm && k.reset) throw UserError(w + ": reset applies to GEMM kernels only");
  if (!is_gemm && (k.wgt_factor_out != 0 || k.wgt_factor_in != 0)) {
    throw UserError(w +
                    ": ALU kernels have no weight index; wgt_factor_out and wgt_factor_in "
                    "must be 0");
  }
  uint8_t scratch[isa::kUopBytes];
  int64_t dst = 0, src = 0, wgt = 0;
  for (size_t i = 0; i < k.uops.size(); ++i) {
    if (!isa::uop_fits(l_, k.uops[i]))
      isa::encode_uop(l_, k.uops[i], scratch, w + ": kernel micro-op " + std::to_string(i));
    dst = std::max(dst, k.uops[i].dst);
    src = std::max(src, k.uops[i].src);
    wgt = std::max(wgt, k.uops[i].wgt);
  }
  const int64_t o = k.iter_out - 1, n = k.iter_in - 1;
  auto check = [&](const char* buffer, int64_t top, int64_t depth) {
    if (top >= depth) {
      throw UserError(w + ": the kernel reaches " + buffer + " index " + std::to_string(top) +
                      " (largest micro-op index plus the loop factors), beyond the " + buffer +
                      " buffer depth " + std::to_string(depth));
    }
  };
  check("ACC", dst + o * k.dst_factor_out + n * k.dst_factor_in, l_.acc_depth);
  const int64_t src_top = src + o * k.src_factor_out + n * k.src_factor_in;
  if (is_gemm && !k.reset) {
    check("INP", src_top, l_.inp_depth);
    check("WGT", wgt + o * k.wgt_factor_out + n * k.wgt_factor_in, l_.wgt_depth);
  } else if (!is_gemm && !use_imm) {
    check("ACC", src_top, l_.acc_depth);
  }
}

int64_t StreamBuilder::make_resident(const std::vector<isa::Uop>& uops, const char* what) {
  std::string key(uops.size() * isa::kUopBytes, '\0');
  for (size_t i = 0; i < uops.size(); ++i) {
    isa::encode_uop(l_, uops[i], reinterpret_cast<uint8_t*>(&key[i * isa::kUopBytes]),
                    isa::uop_fits(l_, uops[i])
                        ? std::string()
                        : std::string(what) + ": kernel micro-op " + std::to_string(i));
  }
  const int64_t area_elems = static_cast<int64_t>(uop_area_.size() / isa::kUopBytes);
  const auto [it, added] = kernel_offset_.emplace(key, area_elems);
  if (added) uop_area_.insert(uop_area_.end(), key.begin(), key.end());
  const int64_t offset = it->second;
  if (const auto r = resident_.find(offset); r != resident_.end()) return r->second;

  const int64_t size = static_cast<int64_t>(uops.size());
  if (uop_top_ + size > l_.uop_depth) {  // full: start again at 0, forget what was resident
    resident_.clear();
    uop_top_ = 0;
  }
  const int64_t base = uop_top_;
  Insn load;
  load.opcode = static_cast<int64_t>(Opcode::kLoad);
  load.memory_type = static_cast<int64_t>(MemType::kUop);
  load.sram_base = base;
  load.dram_base = offset;  // relative to the micro-op area until build()
  load.y_size = 1;
  load.x_size = size;
  load.x_stride = size;
  emit(load, /*relocate=*/true);
  resident_[offset] = base;
  uop_top_ += size;
  ++uop_loads_;
  return base;
}

void StreamBuilder::gemm(const UopKernel& kernel) {
  check_open("gemm");
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kGemm);
  insn.reset_reg = kernel.reset ? 1 : 0;
  insn.uop_end = static_cast<int64_t>(std::min<size_t>(kernel.uops.size(), 1));
  fill_loops(insn, kernel);
  uint8_t scratch[isa::kInsnBytes];
  if (!isa::insn_fits(l_, insn))
    isa::encode_insn(l_, insn, scratch, "gemm: " + where(insns_.size(), insn));
  check_kernel(kernel, /*is_gemm=*/true, /*use_imm=*/false, "gemm");
  insn.uop_bgn = make_resident(kernel.uops, "gemm");
  insn.uop_end = insn.uop_bgn + static_cast<int64_t>(kernel.uops.size());
  emit(insn);
}

void StreamBuilder::alu(isa::AluOp op, const UopKernel& kernel, bool use_imm, int32_t imm) {
  check_open("alu");
  Insn insn;
  insn.opcode = static_cast<int64_t>(Opcode::kAlu);
  insn.alu_opcode = static_cast<int64_t>(op);
  insn.use_imm = use_imm ? 1 : 0;
  insn.imm = use_imm ? imm : 0;
  insn.uop_end = static_cast<int64_t>(std::min<size_t>(kernel.uops.size(), 1));
  fill_loops(insn, kernel);
  uint8_t scratch[isa::kInsnBytes];
  if (!isa::insn_fits(l_, insn))
    isa::encode_insn(l_, insn, scratch, "alu: " + where(insns_.size(), insn));
  check_kernel(kernel, /*is_gemm=*/false, use_imm, "alu");
  insn.uop_bgn = make_resident(kernel.uops, "alu");
  insn.uop_end = insn.uop_bgn + static_cast<int64_t>(kernel.uops.size());
  emit(insn);
}

void StreamBuilder::dep_push(Module from, Module to) {
  check_open("dep_push");
  if (!queue_between(from, to)) {
    throw UserError("dep_push" + pair_name(from, to) +
                    ": tokens flow only between neighbouring modules (load<->compute, "
                    "compute<->store)");
  }
  int64_t Insn::*flag = push_flag(from, to);
  const int64_t last = last_[mi(from)];
  if (last < 0 || insns_[static_cast<size_t>(last)].*flag != 0) emit_noop(from);
  insns_[static_cast<size_t>(last_[mi(from)])].*flag = 1;
}

void StreamBuilder::dep_pop(Module from, Module to) {
  check_open("dep_pop");
  if (!queue_between(from, to)) {
    throw UserError("dep_pop" + pair_name(from, to) +
                    ": tokens flow only between neighbouring modules (load<->compute, "
                    "compute<->store)");
  }
  const int side = mi(from) < mi(to) ? 0 : 1;  // the token comes from `to`'s prev or next
  if (pending_pop_[mi(to)][side]) emit_noop(to);
  pending_pop_[mi(to)][side] = true;
}

void StreamBuilder::synchronize() {
  check_open("synchronize");
  for (Module m : {Module::kLoad, Module::kStore}) {
    if (pending_pop_[mi(m)][0] || pending_pop_[mi(m)][1]) emit_noop(m);
  }
  // FINISH pops a token from each of the other modules' last instruction, so it waits for
  // all of their work (and its own module's, which runs in order).
  for (Module m : {Module::kLoad, Module::kStore}) {
    if (last_[mi(m)] < 0) continue;
    dep_push(m, Module::kCompute);
    dep_pop(m, Module::kCompute);
  }
  Insn finish;
  finish.opcode = static_cast<int64_t>(Opcode::kFinish);
  emit(finish);
  finished_ = true;
}

Program StreamBuilder::build(uint64_t insn_byte_offset, uint64_t uop_byte_offset) const {
  if (!finished_) {
    throw UserError("build: the stream has no FINISH yet; call synchronize() first");
  }
  if (insn_byte_offset % isa::kInsnBytes != 0) {
    throw UserError("build: the instruction offset " + std::to_string(insn_byte_offset) +
                    " is not a multiple of the 16-byte instruction size");
  }
  if (uop_byte_offset % isa::kUopBytes != 0) {
    throw UserError("build: the micro-op offset " + std::to_string(uop_byte_offset) +
                    " is not a multiple of the 4-byte micro-op size");
  }
  const uint64_t insn_end = insn_byte_offset + insns_.size() * isa::kInsnBytes;
  const uint64_t uop_end = uop_byte_offset + uop_area_.size();
  if (!uop_area_.empty() && insn_byte_offset < uop_end && uop_byte_offset < insn_end) {
    throw UserError("build: the instructions [" + std::to_string(insn_byte_offset) + ", " +
                    std::to_string(insn_end) + ") overlap the micro-op area [" +
                    std::to_string(uop_byte_offset) + ", " + std::to_string(uop_end) + ")");
  }
  Program p;
  p.insns = insns_;
  p.insn_count = insns_.size();
  p.insn_byte_offset = insn_byte_offset;
  p.uop_byte_offset = uop_byte_offset;
  p.uop_bytes = uop_area_;
  p.insn_bytes.resize(insns_.size() * isa::kInsnBytes);
  const int64_t uop_base = static_cast<int64_t>(uop_byte_offset / isa::kUopBytes);
  for (size_t i = 0; i < p.insns.size(); ++i) {
    if (relocate_[i]) p.insns[i].dram_base += uop_base;
    isa::encode_insn(l_, p.insns[i], p.insn_bytes.data() + i * isa::kInsnBytes,
                     isa::insn_fits(l_, p.insns[i]) ? std::string()
                                                    : "build: " + where(i, p.insns[i]));
  }
  p.tokens = verify_tokens_or_throw(l_, p.insns);
  return p;
}

std::string StreamBuilder::listing() const {
  std::string out;
  for (size_t i = 0; i < insns_.size(); ++i) {
    out += std::to_string(i) + ": " + isa::format_insn(l_, insns_[i]) + "\n";
  }
  return out;
}

}  // namespace weft::rt
