// Renders the Vitis packaging files from the register description; see fpga_files.h.
#include "hardware/fpga/fpga_files.h"

#include <cstdio>

#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::fpga {

namespace reg = isa::reg;

namespace {
std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llX", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

const std::vector<Platform>& platforms() {
  static const std::vector<Platform> p = {
      {"u250", "xilinx_u250_gen3x16_xdma_4_1_202210_1", "xcu250-figd2104-2L-e", "DDR[0]", false,
       300, 1728000, 3456000, 2688, 1280, 12288},
      {"u55c", "xilinx_u55c_gen3x16_xdma_3_202210_1", "xcu55c-fsvh2892-2L-e", "HBM[0]", false,
       300, 1304000, 2607000, 2016, 960, 9024},
      {"zcu104", "xilinx_zcu104_base_202210_1", "xczu7ev-ffvc1156-2-e", "", true, 200, 230400,
       460800, 312, 96, 1728},
  };
  return p;
}

const Platform& platform(const std::string& name) {
  std::string known;
  for (const Platform& p : platforms()) {
    if (name == p.name) return p;
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw UserError("unknown FPGA platform '" + name + "' (known: " + known + ")");
}

std::string kernel_xml() {
  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<!-- Generated from hardware/isa/registers.h by weft-fpga-gen; do not edit. -->\n";
  s += "<root versionMajor=\"1\" versionMinor=\"6\">\n";
  s += std::string("  <kernel name=\"") + reg::kKernelName +
       "\" language=\"ip_c\" vlnv=\"weft.dev:weft:" + reg::kKernelName +
       ":1.0\" attributes=\"\" preferredWorkGroupSizeMultiple=\"0\" workGroupSize=\"1\" "
       "interrupt=\"true\" hwControlProtocol=\"ap_ctrl_hs\">\n";
  s += "    <ports>\n";
  s += "      <port name=\"s_axi_control\" mode=\"slave\" range=\"" + hex(reg::kControlRange) +
       "\" dataWidth=\"32\" portType=\"addressable\" base=\"0x0\"/>\n";
  s += "      <port name=\"m_axi_gmem\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" "
       "dataWidth=\"128\" portType=\"addressable\" base=\"0x0\"/>\n";
  s += "    </ports>\n    <args>\n";
  for (const reg::KernelArg& a : reg::kKernelArgs) {
    s += "      <arg name=\"" + std::string(a.name) + "\" addressQualifier=\"" +
         (a.pointer ? "1" : "0") + "\" id=\"" + std::to_string(a.index) + "\" port=\"" +
         (a.pointer ? "m_axi_gmem" : "s_axi_control") + "\" size=\"" + hex(a.size) +
         "\" offset=\"" + hex(a.offset) + "\" type=\"" + a.type + "\" hostOffset=\"0x0\" "
         "hostSize=\"" + hex(a.size) + "\"/>\n";
  }
  s += "    </args>\n  </kernel>\n</root>\n";
  return s;
}

std::string package_xo_tcl(const std::string& config, const std::vector<std::string>& files) {
  std::string s;
  s += "# Packages weft_kernel (configuration " + config + ") as a Vitis RTL kernel.\n";
  s += "# Generated from hardware/isa/registers.h by weft-fpga-gen; do not edit.\n";
  s += "# Run: vivado -mode batch -source package_xo.tcl -tclargs <part> <out.xo>\n";
  s += "set part [lindex $argv 0]\nset xo_path [lindex $argv 1]\n";
  s += "set here [file dirname [file normalize [info script]]]\n";
  s += "set kernel " + std::string(reg::kKernelName) + "\n";
  s += "create_project -force ${kernel}_pkg $here/pkg_project -part $part\n";
  s += "set files [list";
  for (const std::string& f : files) s += " \\\n  {" + f + "}";
  s += "]\n";
  s += "add_files -norecurse $files\n";
  s += "set_property top $kernel [current_fileset]\n";
  s += "update_compile_order -fileset sources_1\n";
  s += "ipx::package_project -root_dir $here/ip -vendor weft.dev -library weft "
       "-taxonomy /KernelIP -import_files -set_current false\n";
  s += "ipx::unload_core $here/ip/component.xml\n";
  s += "ipx::edit_ip_in_project -upgrade true -name ${kernel}_edit -directory $here/ip "
       "$here/ip/component.xml\n";
  s += "set core [ipx::current_core]\n";
  s += "set_property sdx_kernel true $core\n";
  s += "set_property sdx_kernel_type rtl $core\n";
  s += "set_property ipi_drc {ignore_freq_hz true} $core\n";
  s += "ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk $core\n";
  s += "ipx::associate_bus_interfaces -busif s_axi_control -clock ap_clk $core\n";
  s += "ipx::infer_bus_interface ap_rst_n xilinx.com:signal:reset_rtl:1.0 $core\n";
  s += "ipx::infer_bus_interface interrupt xilinx.com:signal:interrupt_rtl:1.0 $core\n";
  s += "# The register map: one register per argument, from the register description.\n";
  s += "set mm [ipx::get_memory_maps s_axi_control -of_objects $core]\n";
  s += "set blk [ipx::get_address_blocks -of_objects $mm]\n";
  s += "if {$blk eq \"\"} { set blk [ipx::add_address_block reg0 $mm] }\n";
  s += "set_property range " + hex(reg::kControlRange) + " $blk\n";
  for (const reg::KernelArg& a : reg::kKernelArgs) {
    s += "set r [ipx::add_register " + std::string(a.name) + " $blk]\n";
    s += "set_property address_offset " + hex(a.offset) + " $r\n";
    s += "set_property size " + std::to_string(a.size * 8) + " $r\n";
    s += "set_property description {" + std::string(a.doc) + "} $r\n";
    if (a.pointer) {
      s += "ipx::add_register_parameter ASSOCIATED_BUSIF $r\n";
      s += "set_property value m_axi_gmem [ipx::get_register_parameters ASSOCIATED_BUSIF "
           "-of_objects $r]\n";
    }
  }
  s += "set_property xpm_libraries {XPM_MEMORY} $core\n";
  s += "ipx::create_xgui_files $core\nipx::update_checksums $core\nipx::check_integrity "
       "-kernel $core\nipx::save_core $core\nclose_project -delete\n";
  s += "package_xo -force -xo_path $xo_path -kernel_name $kernel -ip_directory $here/ip "
       "-kernel_xml $here/kernel.xml\n";
  return s;
}

std::string link_cfg(const Platform& p) {
  std::string s;
  s += std::string("# v++ link configuration of ") + reg::kKernelName + " for " + p.name + " (" +
       (p.embedded ? "embedded" : "Alveo") + ").\n";
  s += "# Generated by weft-fpga-gen; do not edit.\n";
  s += std::string("# part=") + p.part + "\n";
  s += std::string("platform=") + p.vitis + "\n";
  s += "[connectivity]\n";
  s += std::string("nk=") + reg::kKernelName + ":1:" + reg::kKernelName + "_1\n";
  if (*p.memory) s += std::string("sp=") + reg::kKernelName + "_1.m_axi_gmem:" + p.memory + "\n";
  s += "[clock]\n";
  s += "freqHz=" + std::to_string(p.clock_mhz) + "000000:" + reg::kKernelName + "_1.ap_clk\n";
  return s;
}

std::vector<std::pair<std::string, std::string>> generated_files(
    const std::string& config, const std::vector<std::string>& rtl_files) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("kernel.xml", kernel_xml());
  out.emplace_back("package_xo.tcl", package_xo_tcl(config, rtl_files));
  for (const Platform& p : platforms()) out.emplace_back("link_" + std::string(p.name) + ".cfg", link_cfg(p));
  return out;
}

}  // namespace weft::fpga
