// The runtime's instruction-stream builder, in the style of Apache TVM VTA's runtime: callers
// issue 2-D loads and stores, GEMM and ALU micro-op kernels and dependency pushes/pops between
// neighbouring modules; the builder routes each instruction to its module, attaches token
// flags to the right instructions (inserting no-ops only where needed), caches micro-op
// kernels in a DRAM micro-op area and in the on-chip micro-op buffer, ends the stream with
// FINISH and encodes it. Every built stream passes the static token verifier.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/store_requant.h"
#include "runtime/stream/token_verifier.h"

namespace weft::rt {

/// Zero padding of a LOAD, in elements: rows before/after (y0/y1), columns before/after.
struct Pads {
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};

/// A micro-op kernel and the two loop levels a GEMM or ALU instruction runs it under:
/// for i < iter_out, j < iter_in, each micro-op u: dst = u.dst + i*dst_factor_out +
/// j*dst_factor_in (likewise src and, for GEMM, wgt).
struct UopKernel {
  std::vector<isa::Uop> uops;
  int64_t iter_out = 1, iter_in = 1;
  int64_t dst_factor_out = 0, dst_factor_in = 0;
  int64_t src_factor_out = 0, src_factor_in = 0;
  int64_t wgt_factor_out = 0, wgt_factor_in = 0;  // GEMM only
  bool reset = false;                             // GEMM only: zero the dst elements
};

/// A built, encoded stream and its micro-op area.
struct Program {
  std::vector<isa::Insn> insns;     // decoded, for printing
  std::vector<uint8_t> insn_bytes;  // 16 bytes per instruction, to place at insn_byte_offset
  std::vector<uint8_t> uop_bytes;   // the micro-op area, to place at uop_byte_offset
  uint64_t insn_count = 0;
  uint64_t insn_byte_offset = 0;
  uint64_t uop_byte_offset = 0;
  VerifyReport tokens;  // the token verifier's report (worst-case queue occupancy)

  /// Copies the instructions and micro-ops into a DRAM image at their offsets; UserError when
  /// the image is too small.
  void place(std::vector<uint8_t>& dram) const;
};

/// Builds one instruction stream for a layout. Not reusable after synchronize().
class StreamBuilder {
 public:
  explicit StreamBuilder(const isa::Layout& layout);

  const isa::Layout& layout() const { return l_; }
  /// Room for `insns` instructions: a network's streams run to tens of thousands, and growing
  /// the list copied them over and over.
  void reserve(size_t insns) {
    insns_.reserve(insns);
    relocate_.reserve(insns);
  }

  /// LOAD of `y_size` rows of `x_size` elements of `type` (DRAM rows `x_stride` elements apart,
  /// from element `dram_base`) into a dense padded tile at `sram_base`. INP/WGT run on the load
  /// module, UOP/ACC/ACC_8BIT on compute. UserError for OUT, for a tile beyond its buffer and
  /// for a value that does not fit its field.
  void load_2d(isa::MemType type, int64_t sram_base, int64_t dram_base, int64_t y_size,
               int64_t x_size, int64_t x_stride, Pads pads = {});
  /// STORE (OUT) of `y_size` x `x_size` accumulator elements from `sram_base` to DRAM rows
  /// `x_stride` OUT elements apart from element `dram_base`; `requant` (configurations with the
  /// store_requant option only) narrows by clamp(acc >> shift) instead of truncating.
  void store_2d(int64_t sram_base, int64_t dram_base, int64_t y_size, int64_t x_size,
                int64_t x_stride, const isa::StoreRequant& requant = {});
  /// GEMM running `kernel` (kernel.reset: zero the addressed accumulator elements). Loads the
  /// kernel's micro-ops first unless they are resident.
  void gemm(const UopKernel& kernel);
  /// ALU `op` running `kernel` with ACC[src] or the immediate as the second operand.
  void alu(isa::AluOp op, const UopKernel& kernel, bool use_imm = false, int32_t imm = 0);

  /// Makes `from` signal `to` after everything `from` has been given so far: the push goes on
  /// `from`'s last instruction, or on a no-op when that one already pushes towards `to` (or
  /// there is none). UserError unless the modules are neighbours.
  void dep_push(isa::Module from, isa::Module to);
  /// Makes `to`'s next instruction wait for a token from `from`. When a pop of that direction
  /// is already pending, a no-op on `to` takes the earlier one first.
  void dep_pop(isa::Module from, isa::Module to);

  /// Ends the stream: pending pops go on no-ops, the load and store modules (when used) each
  /// push a token that FINISH pops, so FINISH waits for everything; then FINISH.
  void synchronize();
  bool synchronized() const { return finished_; }

  /// Encodes the synchronized stream with the instructions at byte `insn_byte_offset` (a
  /// multiple of 16) and the micro-op area at `uop_byte_offset` (a multiple of 4; LOAD UOP
  /// dram_base = uop_byte_offset / 4 + the kernel's offset in the area). Runs the token
  /// verifier. UserError when not synchronized, for misaligned or overlapping offsets, for a
  /// field that does not fit and for a stream that fails verification.
  Program build(uint64_t insn_byte_offset, uint64_t uop_byte_offset) const;

  /// The stream so far, one "N: <assembly>" line per instruction (LOAD UOP dram_base relative
  /// to the micro-op area).
  std::string listing() const;
  /// The instructions so far (LOAD UOP dram_base relative to the micro-op area).
  const std::vector<isa::Insn>& insns() const { return insns_; }
  /// Distinct kernels stored in the micro-op area.
  size_t num_kernels() const { return kernel_offset_.size(); }
  /// Size of the micro-op area in bytes.
  uint64_t uop_area_bytes() const { return uop_area_.size(); }
  /// LOAD UOP instructions emitted for kernels (cache misses).
  int64_t num_uop_loads() const { return uop_loads_; }

 private:
  void check_open(const char* what) const;
  // Attaches pending pops of the instruction's module, checks every field, appends it.
  void emit(isa::Insn insn, bool relocate = false);
  void emit_noop(isa::Module m);
  // Makes a kernel resident in the micro-op buffer (emitting LOAD UOP if needed); returns its
  // first index there.
  int64_t make_resident(const std::vector<isa::Uop>& uops, const char* what);
  void check_kernel(const UopKernel& k, bool is_gemm, bool use_imm, const char* what) const;
  void fill_loops(isa::Insn& insn, const UopKernel& k) const;
  std::string where(size_t index, const isa::Insn& insn) const;

  const isa::Layout& l_;
  std::vector<isa::Insn> insns_;
  std::vector<bool> relocate_;  // LOAD UOP of a cached kernel: dram_base is area-relative
  std::array<int64_t, 3> last_{-1, -1, -1};           // last instruction of each module
  std::array<std::array<bool, 2>, 3> pending_pop_{};  // [module][0 prev, 1 next]
  bool finished_ = false;
  // Micro-op kernels: encoded bytes -> offset (in micro-ops) in the DRAM area.
  std::map<std::string, int64_t> kernel_offset_;
  std::vector<uint8_t> uop_area_;
  // On-chip residency: area offset -> micro-op buffer index; bump allocation from uop_top_.
  std::map<int64_t, int64_t> resident_;
  int64_t uop_top_ = 0;
  int64_t uop_loads_ = 0;
};

}  // namespace weft::rt
