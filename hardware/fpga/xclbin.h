// The .xclbin container (AMD/Xilinx "axlf", the public layout of XRT's xclbin.h): reading one
// without a device (`weft xclbin-info`), checking its kernel against Weft's register map, and
// writing the synthetic .xclbin the tests load into XRT's noop device. Only the sections the
// xrt engine relies on are interpreted: EMBEDDED_METADATA (kernel.xml: the kernel, its
// arguments and their register offsets), IP_LAYOUT (compute units and their control
// protocol), MEM_TOPOLOGY (memory banks) and CONNECTIVITY (which bank each argument uses).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::fpga {

/// One argument as kernel.xml declares it.
struct XclbinArg {
  std::string name, port, type;
  int index = -1;
  uint32_t offset = 0, size = 0;
  int address_qualifier = 0;  // 0 scalar, 1 global memory pointer
};

/// A compute unit (IP_LAYOUT entry of type IP_KERNEL).
struct XclbinCu {
  std::string name;  // kernel:instance
  uint64_t base = 0;
  int control = 0;  // 0 ap_ctrl_hs, 1 ap_ctrl_chain, 2 ap_ctrl_none
  bool interrupt = false;
};

/// A memory bank (MEM_TOPOLOGY entry).
struct XclbinBank {
  std::string tag;
  int type = 0;
  bool used = false;
  uint64_t base = 0, size_kb = 0;
};

/// Everything `weft xclbin-info` shows.
struct XclbinInfo {
  std::string uuid, platform;
  uint64_t length = 0;
  std::vector<std::pair<uint32_t, uint64_t>> sections;  // (kind, size)
  std::string kernel;                                   // the first kernel in kernel.xml
  std::string control_protocol;                         // hwControlProtocol of that kernel
  std::vector<XclbinArg> args;
  std::vector<XclbinCu> cus;
  std::vector<XclbinBank> banks;
  std::vector<std::pair<int, int>> connections;  // (argument index, bank index)
};

/// The name of an axlf section kind ("EMBEDDED_METADATA", ...).
std::string section_name(uint32_t kind);

/// Parses an .xclbin image; UserError naming `file` and what is wrong (not an xclbin,
/// truncated, a section beyond the end, no kernel metadata).
XclbinInfo parse_xclbin(const std::vector<uint8_t>& bytes, const std::string& file);

/// Parses kernel.xml text (the EMBEDDED_METADATA section) into `info`'s kernel and args.
void parse_kernel_xml(const std::string& xml, XclbinInfo& info, const std::string& file);

/// What differs from Weft's register map (hardware/isa/registers.h kKernelArgs): one line per
/// problem (a missing kernel, a missing or moved argument, a wrong size or kind, another
/// control protocol, a pointer argument with no memory bank); empty when it matches.
std::vector<std::string> check_against_register_map(const XclbinInfo& info);

/// A synthetic .xclbin for XRT's noop device: kernel.xml as EMBEDDED_METADATA, one compute
/// unit, one DDR bank of `bank_mb` MiB, the pointer arguments connected to it. No bitstream.
std::vector<uint8_t> synthetic_xclbin(uint64_t bank_mb = 1024);

}  // namespace weft::fpga
