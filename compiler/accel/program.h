// The accelerator program a lowered schedule compiles to: a flat, ordered list of operations
// (2D loads and stores between DRAM tensors and on-chip buffers, GEMM micro-op kernels) and
// the dependency tokens between the modules that run them, ready for the runtime's
// instruction-stream builder. It names DRAM tensors by their IR buffer, so the runtime decides
// where each tensor lives.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"
#include "hardware/isa/insn.h"
#include "hardware/isa/store_requant.h"

namespace weft::compiler::accel {

/// One operation of an accelerator program.
struct Op {
  enum class Kind { kLoad, kStore, kGemm, kAlu, kDepPush, kDepPop } kind;
  // The module whose queue runs it (set by assign_queues; tokens: unused).
  isa::Module module = isa::Module::kCompute;
  // kLoad / kStore: blocks of `tensor` (DRAM, in blocks from its start) and of the on-chip
  // buffer of `mem` (kStore: always the accumulator, narrowed to int8).
  isa::MemType mem = isa::MemType::kInp;
  ir::Buffer tensor;
  int64_t sram_base = 0, dram_offset = 0, y_size = 0, x_size = 0, x_stride = 0;
  // kLoad: zero rows before/after and columns before/after the y_size x x_size read tile.
  int64_t y_pad0 = 0, y_pad1 = 0, x_pad0 = 0, x_pad1 = 0;
  // kStore: the store path's requantization (hardware option store_requant; else off).
  isa::StoreRequant requant;
  // kGemm / kAlu: a micro-op kernel under two loop levels (kAlu: uop.wgt unused).
  bool reset = false;
  isa::AluOp alu_op = isa::AluOp::kAdd;
  bool use_imm = false;
  int64_t imm = 0;
  std::vector<isa::Uop> uops;
  int64_t iter_out = 1, iter_in = 1;
  int64_t dst_factor_out = 0, dst_factor_in = 0, src_factor_out = 0, src_factor_in = 0;
  int64_t wgt_factor_out = 0, wgt_factor_in = 0;
  // kDepPush / kDepPop: a token from `from` to `to`.
  isa::Module from = isa::Module::kLoad, to = isa::Module::kCompute;
};

/// An accelerator program.
struct Program {
  std::vector<Op> ops;
  std::vector<ir::Buffer> tensors;  // DRAM tensors it reads or writes, in first-use order
};

/// The module an operation must run on (the ISA's routing: INP/WGT loads on load, UOP/ACC
/// loads, GEMM and ALU on compute, stores on store).
isa::Module module_of(const Op& op);

/// Which on-chip blocks an operation reads and writes, as (buffer, block index) pairs: each
/// block once, each buffer's blocks in increasing order (a GEMM's micro-op iterations revisit
/// blocks; the passes that ask need only which).
enum class Space { kInp, kWgt, kAcc };
struct Access {
  std::vector<std::pair<Space, int64_t>> reads, writes;
};
Access accesses(const Op& op);
/// The accumulator rows in an access list, sorted, without repeats (a vector, not a set: a
/// GEMM's rows number in the thousands, and the program rewrites ask for every operation's).
std::vector<int64_t> acc_rows(const std::vector<std::pair<Space, int64_t>>& list);

}  // namespace weft::compiler::accel
