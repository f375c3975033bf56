// The registry of intrinsics: every operation the loop IR calls (ir::Call) is one entry here,
// with the name the IR prints, its operand counts and what it does besides computing a value.
// Passes and code generators compare a call's `op` with these enumerators or ask the registry
// (intrinsic_info); no other file names an intrinsic by a string. Calls list their buffer
// operands first (printed first) and then their arguments; for an intrinsic with buffers, the
// first arguments are indices into those buffers, one per buffer, in the same order (on-chip
// allocation offsets them, micro-op folding folds them).
//
// The file also holds the attribute key that accelerator passes hand to each other
// (kQueueAttr), the other name of the IR's contracts.
#pragma once

#include <cstdint>

namespace weft::compiler::ir {

/// Every intrinsic. Operands are written (buffers; arguments).
enum class Intrinsic : uint8_t {
  // ---- values, implemented by the backends that support them ----
  /// select(cond, a, b): a where cond is non-zero, else b (both evaluated); of a's type.
  kSelect,
  /// dot2_i16(x, y) of two int32 values each holding two int16 halves (low, high):
  /// low(x)*low(y) + high(x)*high(y) as int32 (x86's pmaddwd lane).
  kDot2I16,
  /// dot4_u8s8(x, y): x holds four unsigned bytes, y four signed bytes (byte 0 lowest); the
  /// sum of the four byte-wise products as int32 (x86's vpdpbusd lane with a zero addend).
  kDot4U8S8,
  /// dot4_i8(x, y) of two int32 values each holding four int8 bytes: the sum of the four
  /// byte-wise products as int32 (CUDA's __dp4a with a zero addend).
  kDot4I8,
  /// round_even(x) of a float32 value: the nearest integer, ties to even, as float32.
  kRoundEven,
  /// rcp(x): 1.0f / x for float32 (CUDA).
  kRcp,
  /// Float32 math of the graph's element-wise operators: exp(x), tanh(x) and erf(x) as
  /// compiler/ir/float_functions.h defines them (vectorized by the CPU backend; a host loop
  /// calls the same definition and computes the same bits), sqrt(x) and pow(x, y) as C's
  /// functions of that name, and fdiv(x, y) the IEEE quotient x / y (the IR's own division is
  /// integer floor division).
  kExp,
  kTanh,
  kErf,
  kSqrt,
  kPow,
  kFDiv,

  // ---- accelerator (compiler/passes) ----
  /// dma_copy2d(dst, src; dst_base, src_base, y_size, x_size, dst_stride, src_stride): a 2D
  /// block copy, the shape of a LOAD or STORE (detect_dma.h).
  kDmaCopy2d,
  /// dma_copy2d_pad(dst, src; ..., y_start, y_extent, x_start, x_extent): a LOAD whose rows
  /// and columns outside [0, extent) of the source are zero (detect_dma.h).
  kDmaCopy2dPad,
  /// gemm(acc, inp, wgt; acc_block, inp_block, wgt_block): one GEMM block (te::lower).
  kGemm,
  /// gemm_reset(acc; acc_block): zeroes one accumulator block.
  kGemmReset,
  /// alu(dst, src; dst_block, src_block, op, use_imm, imm): one ALU block (lower_alu.h).
  kAlu,
  /// The micro-op kernels fold_uops makes of the three block calls above: one GEMM or ALU
  /// instruction each, hardware loops and micro-op list as arguments (fold_uops.h).
  kGemmKernel,
  kGemmResetKernel,
  kAluKernel,

  // ---- GPU (compiler/codegen/cuda) ----
  /// syncthreads(): a barrier of the threads of a block (insert_barriers).
  kSyncThreads,
  /// wmma_mma(acc, a, b; acc_tile, a_tile, b_tile): acc += a x b on 16x16x16 tensor-core
  /// fragments (te::GemmIntrinsic for the GPU).
  kWmmaMma,
  /// wmma_fill(acc; acc_tile): zeroes an accumulator fragment.
  kWmmaFill,
};

/// The edge of kWmmaMma's fragments (m = n = k = 16).
inline constexpr int64_t kWmmaTile = 16;

/// What a call does besides producing its value.
enum class Effect : uint8_t {
  kPure,     // nothing: its value depends on its arguments only
  kCompute,  // reads its buffers and writes the first (GEMM, ALU, tensor-core operations)
  kDma,      // copies from its second buffer into its first (accelerator LOAD/STORE)
  kBarrier,  // synchronises the threads of a GPU block
};

/// One registry entry.
struct IntrinsicInfo {
  Intrinsic op;
  const char* name;  // as printed, e.g. "weft.gemm"
  int args;          // argument count; kVariadic for the micro-op kernels
  int buffers;       // buffer operand count
  Effect effect;
  bool instruction;  // one accelerator instruction (what assign_queues routes)
  Intrinsic kernel;  // a block call's micro-op kernel (fold_uops); itself when none
  static constexpr int kVariadic = -1;
};

/// The registry entry of `op`.
const IntrinsicInfo& intrinsic_info(Intrinsic op);
/// The printed name of `op`.
inline const char* intrinsic_name(Intrinsic op) { return intrinsic_info(op).name; }
/// Whether `op` is an accelerator block call that fold_uops turns into a micro-op kernel.
inline bool folds_to_kernel(Intrinsic op) { return intrinsic_info(op).kernel != op; }

/// The key of the attribute assign_queues wraps around each accelerator instruction; its
/// value is the module (isa::Module) that runs it.
inline constexpr const char* kQueueAttr = "weft.queue";

}  // namespace weft::compiler::ir
