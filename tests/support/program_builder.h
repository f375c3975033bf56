// Test support: lays out a DRAM image for simulator tests. A ProgramBuilder places tensor data
// and micro-ops at element indices of each memory type, appends instructions through short
// helpers (load, store, gemm, alu, finish) and builds the image with the instructions after
// the data. Tests then run the image on an engine and read results back from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"

namespace weft::test {

/// The dependency flags of one instruction (DESIGN.md §3, bits [6:3]); combine with `|`.
struct Deps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
};

inline constexpr Deps kPopPrev{true, false, false, false};
inline constexpr Deps kPopNext{false, true, false, false};
inline constexpr Deps kPushPrev{false, false, true, false};
inline constexpr Deps kPushNext{false, false, false, true};

/// The union of two sets of dependency flags.
constexpr Deps operator|(Deps a, Deps b) {
  return Deps{a.pop_prev || b.pop_prev, a.pop_next || b.pop_next, a.push_prev || b.push_prev,
              a.push_next || b.push_next};
}

/// Zero padding of a LOAD, in elements: rows before/after (y0/y1), columns before/after (x0/x1).
struct Pads {
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};

/// The two loop levels of a GEMM/ALU instruction and the factor of each index per level.
struct Loops {
  int64_t iter_out = 1, iter_in = 1;
  int64_t dst_out = 0, dst_in = 0;
  int64_t src_out = 0, src_in = 0;
  int64_t wgt_out = 0, wgt_in = 0;  // GEMM only
};

/// A built DRAM image and where its instructions lie.
struct Program {
  const isa::Layout* layout = nullptr;
  std::vector<uint8_t> dram;
  uint64_t insn_offset = 0;
  uint64_t insn_count = 0;

  /// The 16 encoded bytes of instruction `index`, for tests that corrupt an encoding.
  uint8_t* insn_bytes(size_t index);
  /// Overwrites bits [lsb + width - 1 : lsb] of instruction `index` (a field never straddles
  /// bit 64, so neither may the range).
  void set_insn_bits(size_t index, int lsb, int width, uint64_t value);
  /// The raw bytes of `count` elements of memory type `t` from element index `elem`.
  std::vector<uint8_t> bytes(isa::MemType t, int64_t elem, int64_t count) const;
  /// The same bytes read as int8 values (INP, WGT, OUT, ACC_8BIT).
  std::vector<int8_t> int8s(isa::MemType t, int64_t elem, int64_t count) const;
  /// `count` ACC elements from element index `elem` read as little-endian int32 lanes.
  std::vector<int32_t> int32s(int64_t elem, int64_t count) const;
};

/// Builds a DRAM image: data regions first (allocated in order, never overlapping), then the
/// instructions at a 16-byte aligned offset. Instructions are kept decoded until build(), so
/// a test can adjust any field of an added instruction through at().
class ProgramBuilder {
 public:
  explicit ProgramBuilder(const isa::Layout& layout);

  const isa::Layout& layout() const { return l_; }

  // Data. Element indices are in elements of the memory type, as LOAD/STORE address DRAM.

  /// Reserves `count` zeroed elements of type `t` after all earlier data; returns the index
  /// of the first (aligned to the element size).
  int64_t alloc(isa::MemType t, int64_t count);
  /// Writes raw bytes at element index `elem` of type `t`, growing the data region as needed.
  void put_bytes(isa::MemType t, int64_t elem, const std::vector<uint8_t>& bytes);
  /// Writes int8 values (INP, WGT, OUT, ACC_8BIT elements) at element index `elem`.
  void put_int8(isa::MemType t, int64_t elem, const std::vector<int8_t>& values);
  /// Writes int32 lanes (ACC elements) at element index `elem`.
  void put_int32(int64_t elem, const std::vector<int32_t>& lanes);
  /// Encodes micro-ops (isa::encode_uop) at UOP element index `elem`.
  void put_uops(int64_t elem, const std::vector<isa::Uop>& uops);
  /// Fills `count` elements of type `t` from `elem` with `byte`.
  void fill(isa::MemType t, int64_t elem, int64_t count, uint8_t byte);

  /// alloc + put: whole elements of int8 values; returns the first element index.
  int64_t add_int8(isa::MemType t, const std::vector<int8_t>& values);
  /// alloc + put: whole ACC elements of int32 lanes; returns the first element index.
  int64_t add_int32(const std::vector<int32_t>& lanes);
  /// alloc + put: micro-ops; returns the first UOP element index.
  int64_t add_uops(const std::vector<isa::Uop>& uops);

  // Instructions; each returns its index in the program.

  /// LOAD of `y_size` rows of `x_size` elements (DRAM rows `x_stride` apart) at sram_base.
  size_t load(isa::MemType t, int64_t sram_base, int64_t dram_base, int64_t y_size, int64_t x_size,
              int64_t x_stride, Pads pads = {}, Deps deps = {});
  /// 1-D LOAD of `count` elements (y_size 1).
  size_t load_1d(isa::MemType t, int64_t sram_base, int64_t dram_base, int64_t count,
                 Deps deps = {});
  /// STORE OUT of `y_size` rows of `x_size` accumulator elements to DRAM rows `x_stride` apart.
  size_t store(int64_t sram_base, int64_t dram_base, int64_t y_size, int64_t x_size,
               int64_t x_stride, Deps deps = {});
  /// GEMM over micro-ops [uop_bgn, uop_end) and the loops.
  size_t gemm(int64_t uop_bgn, int64_t uop_end, Loops loops = {}, Deps deps = {});
  /// GEMM with reset_reg: zeroes the addressed accumulator tiles.
  size_t gemm_reset(int64_t uop_bgn, int64_t uop_end, Loops loops = {}, Deps deps = {});
  /// ALU with a register operand (ACC[src]).
  size_t alu(isa::AluOp op, int64_t uop_bgn, int64_t uop_end, Loops loops = {}, Deps deps = {});
  /// ALU with an immediate operand.
  size_t alu_imm(isa::AluOp op, int64_t imm, int64_t uop_bgn, int64_t uop_end, Loops loops = {},
                 Deps deps = {});
  /// FINISH.
  size_t finish(Deps deps = {});
  /// Any decoded instruction, encoded as is at build().
  size_t insn(const isa::Insn& insn);

  /// Instruction `index`, to adjust a field before build().
  isa::Insn& at(size_t index) { return insns_.at(index); }
  size_t num_insns() const { return insns_.size(); }

  /// Encodes the instructions after the data (throws UserError when a field does not fit).
  Program build() const;

 private:
  uint8_t* grow_to(uint64_t end_byte);

  const isa::Layout& l_;
  std::vector<uint8_t> data_;
  std::vector<isa::Insn> insns_;
};

}  // namespace weft::test
