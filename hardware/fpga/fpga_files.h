// The Vitis packaging files of the RTL kernel, generated from the one register description
// (hardware/isa/registers.h kKernelArgs): kernel.xml, the package_xo Tcl that Vivado runs to
// turn hardware/fpga/weft_kernel.sv into a .xo, and one v++ link configuration per platform.
// Nothing here is written twice: the offsets, sizes and kinds of the arguments come from the
// table, the RTL files from the file lists.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft::fpga {

/// A Vitis platform the kernel is linked for, and the device's resources (for fit reports).
struct Platform {
  const char* name;      // weft's short name (u250, u55c, zcu104)
  const char* vitis;     // the platform name v++ takes (--platform)
  const char* part;      // the FPGA part
  const char* memory;    // the memory bank m_axi_gmem is connected to ("" = platform default)
  bool embedded;         // an embedded (Zynq MPSoC) board rather than an Alveo card
  int clock_mhz;         // the kernel clock asked for
  long luts, ffs, bram36, urams, dsps;
};

/// The platforms configurations are generated for.
const std::vector<Platform>& platforms();
/// The platform named `name`; UserError naming the known ones otherwise.
const Platform& platform(const std::string& name);

/// kernel.xml for the `config` configuration (the AXI data width is the RTL's, 128 bits).
std::string kernel_xml();
/// The Vivado Tcl that packages the kernel for `config`; `rtl_files` are the SystemVerilog
/// files in compile order (the configuration's package first).
std::string package_xo_tcl(const std::string& config, const std::vector<std::string>& rtl_files);
/// The v++ --config file linking the kernel for `p`.
std::string link_cfg(const Platform& p);

/// (file name, contents) of every file for `config`: kernel.xml, package_xo.tcl and
/// link_<platform>.cfg for each platform.
std::vector<std::pair<std::string, std::string>> generated_files(
    const std::string& config, const std::vector<std::string>& rtl_files);

}  // namespace weft::fpga
