// The control-register map of the accelerator (DESIGN.md §4), an XRT-compatible RTL kernel:
// an AXI4-Lite slave `s_axi_control` with the ap_ctrl_hs block, 64-bit arguments, read-only
// counters and a sticky error register. Shared by the RTL, the driver and the simulators.
#pragma once

#include <cstdint>

namespace weft::isa::reg {

inline constexpr uint32_t kControl =
    0x00;  // bit0 ap_start, bit1 ap_done, bit2 ap_idle, bit3 ap_ready
inline constexpr uint32_t kGlobalIntEnable = 0x04;
inline constexpr uint32_t kIpIntEnable = 0x08;
inline constexpr uint32_t kIpIntStatus = 0x0C;
// Arguments, each 64 bits as two 32-bit registers (low word first).
inline constexpr uint32_t kInsnCount = 0x10;
inline constexpr uint32_t kInsnAddr = 0x18;
inline constexpr uint32_t kDramBase = 0x20;  // added to every DMA address (0: VTA's absolute)
// Read-only counters of the last run, 64 bits each.
inline constexpr uint32_t kCycles = 0x28;
inline constexpr uint32_t kLoadBusy = 0x30;
inline constexpr uint32_t kLoadStall = 0x38;
inline constexpr uint32_t kComputeBusy = 0x40;
inline constexpr uint32_t kComputeStall = 0x48;
inline constexpr uint32_t kStoreBusy = 0x50;
inline constexpr uint32_t kStoreStall = 0x58;
// Sticky error register (bits below) and the index of the instruction that raised it.
inline constexpr uint32_t kError = 0x60;
inline constexpr uint32_t kErrorInsn = 0x64;
inline constexpr uint32_t kMapEnd = 0x68;

inline constexpr uint32_t kApStart = 1u << 0;
inline constexpr uint32_t kApDone = 1u << 1;
inline constexpr uint32_t kApIdle = 1u << 2;
inline constexpr uint32_t kApReady = 1u << 3;

/// Bits of the error register: what went wrong in the last run.
enum ErrorBit : uint32_t {
  kErrIllegalInsn = 1u << 0,    // unknown opcode/type, bad field combination, FINISH misplaced
  kErrSramRange = 1u << 1,      // an on-chip index beyond its buffer
  kErrTokenOverflow = 1u << 2,  // a push onto a full token queue
  kErrDramRange = 1u << 3,      // a DMA beyond device memory
  kErrDeadlock = 1u << 4,       // no module can proceed and FINISH has not run
  kErrLeftover = 1u << 5,       // FINISH ran with work or tokens left
  kErrInternal = 1u << 31,      // simulators only: the run stopped for another reason
};

/// A short description of an error register value ("token-queue overflow", ...).
inline const char* error_bit_name(uint32_t bit) {
  switch (bit) {
    case kErrIllegalInsn:
      return "illegal instruction";
    case kErrSramRange:
      return "on-chip index out of range";
    case kErrTokenOverflow:
      return "token-queue overflow";
    case kErrDramRange:
      return "DRAM access out of range";
    case kErrDeadlock:
      return "deadlock";
    case kErrLeftover:
      return "work or tokens left at FINISH";
    case kErrInternal:
      return "run stopped (cancelled or internal error)";
    default:
      return "unknown error";
  }
}

}  // namespace weft::isa::reg
