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
inline constexpr uint32_t kMapEnd = 0x68;  // end of weft_top's map
// The Vitis kernel top (hardware/fpga/weft_kernel.sv) adds one argument: the device address of
// a 64-byte status buffer that receives the register image kCycles..kMapEnd before ap_done.
inline constexpr uint32_t kStatusAddr = 0x68;
inline constexpr uint32_t kKernelMapEnd = 0x70;
inline constexpr uint32_t kStatusBytes = kMapEnd - kCycles;
/// The kernel's name in kernel.xml, the .xclbin and xrt::kernel.
inline constexpr const char* kKernelName = "weft_kernel";
/// The AXI4-Lite range of s_axi_control in kernel.xml (the kernel decodes 12 address bits).
inline constexpr uint32_t kControlRange = 0x1000;

/// One argument of the kernel as XRT sees it: its index, name, register offset and size, and
/// whether it is a device-memory pointer (on m_axi_gmem) or a scalar. THE register description
/// that kernel.xml, the packaging Tcl, the synthetic .xclbin, `weft xclbin-info` and the xrt
/// engine are generated from or checked against.
struct KernelArg {
  int index;
  const char* name;
  uint32_t offset;
  uint32_t size;
  bool pointer;
  const char* type;  // the C type in kernel.xml
  const char* doc;
};
inline constexpr KernelArg kKernelArgs[] = {
    {0, "insn_count", kInsnCount, 8, false, "ulong", "instructions in the stream"},
    {1, "insn_addr", kInsnAddr, 8, false, "ulong",
     "byte offset of the instruction stream from dram_base (16-byte aligned)"},
    {2, "dram_base", kDramBase, 8, true, "void*",
     "the device-memory arena every DMA address is relative to"},
    {3, "status", kStatusAddr, 8, true, "void*",
     "64-byte status buffer: the register image 0x28..0x67 written before ap_done"},
};
inline constexpr int kNumKernelArgs = sizeof(kKernelArgs) / sizeof(kKernelArgs[0]);

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
  kErrBusResp = 1u << 6,        // kernel top: an AXI read or write error response
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
    case kErrBusResp:
      return "AXI error response (SLVERR/DECERR) from device memory";
    case kErrInternal:
      return "run stopped (cancelled or internal error)";
    default:
      return "unknown error";
  }
}

}  // namespace weft::isa::reg
