// The Vitis packaging files and the .xclbin reader/writer (label `unit`): generated from the
// register description, read back to the same arguments, and every kind of bad file named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "hardware/fpga/fpga_files.h"
#include "hardware/fpga/xclbin.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;
namespace reg = isa::reg;

TEST(FpgaFiles, KernelXmlDeclaresEveryArgumentOfTheRegisterMap) {
  fpga::XclbinInfo info;
  fpga::parse_kernel_xml(fpga::kernel_xml(), info, "kernel.xml");
  EXPECT_EQ(info.kernel, reg::kKernelName);
  EXPECT_EQ(info.control_protocol, "ap_ctrl_hs");
  ASSERT_EQ(info.args.size(), static_cast<size_t>(reg::kNumKernelArgs));
  for (int i = 0; i < reg::kNumKernelArgs; ++i) {
    EXPECT_EQ(info.args[i].name, reg::kKernelArgs[i].name);
    EXPECT_EQ(info.args[i].offset, reg::kKernelArgs[i].offset);
    EXPECT_EQ(info.args[i].size, 8u);
    EXPECT_EQ(info.args[i].address_qualifier == 1, reg::kKernelArgs[i].pointer);
  }
  EXPECT_TRUE(fpga::check_against_register_map(info).empty());
  // the status argument lies beyond weft_top's map, in the kernel top's
  EXPECT_EQ(reg::kStatusAddr, reg::kMapEnd);
  EXPECT_EQ(reg::kStatusBytes, 64u);
}

TEST(FpgaFiles, LinkConfigsNameThePlatformAndTheBank) {
  EXPECT_THAT(fpga::link_cfg(fpga::platform("u250")),
              HasSubstr("sp=weft_kernel_1.m_axi_gmem:DDR[0]"));
  EXPECT_THAT(fpga::link_cfg(fpga::platform("u55c")), HasSubstr("HBM[0]"));
  const std::string z = fpga::link_cfg(fpga::platform("zcu104"));
  EXPECT_THAT(z, HasSubstr("platform=xilinx_zcu104_base_202210_1"));
  EXPECT_THAT(z, HasSubstr("freqHz=200000000:weft_kernel_1.ap_clk"));
  try {
    fpga::platform("kv999");
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown FPGA platform 'kv999' (known: u250, u55c, zcu104)"));
  }
  const auto files = fpga::generated_files("tiny", {"a.sv", "b.sv"});
  ASSERT_EQ(files.size(), 5u);
  EXPECT_THAT(files[1].second, HasSubstr("{a.sv}"));
}

TEST(Xclbin, SyntheticRoundTrips) {
  const std::vector<uint8_t> b = fpga::synthetic_xclbin(256);
  const fpga::XclbinInfo info = fpga::parse_xclbin(b, "s.xclbin");
  EXPECT_EQ(info.length, b.size());
  EXPECT_EQ(info.platform, "weft:synthetic:noop:1.0");
  EXPECT_EQ(info.kernel, "weft_kernel");
  ASSERT_EQ(info.cus.size(), 1u);
  EXPECT_EQ(info.cus[0].name, "weft_kernel:weft_kernel_1");
  EXPECT_EQ(info.cus[0].control, 0);
  ASSERT_EQ(info.banks.size(), 1u);
  EXPECT_EQ(info.banks[0].size_kb, 256u * 1024);
  EXPECT_EQ(info.connections.size(), 2u);  // dram_base and status
  EXPECT_TRUE(fpga::check_against_register_map(info).empty());
  EXPECT_EQ(fpga::synthetic_xclbin(256), b) << "reproducible";
}

TEST(Xclbin, BadFilesAreNamed) {
  std::vector<uint8_t> b = fpga::synthetic_xclbin();
  auto expect_error = [](const std::vector<uint8_t>& bytes, const std::string& what) {
    try {
      fpga::parse_xclbin(bytes, "bad.xclbin");
      ADD_FAILURE() << "accepted: " << what;
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr("'bad.xclbin'"));
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  expect_error(std::vector<uint8_t>(100, 0), "is not an .xclbin");
  std::vector<uint8_t> cut(b.begin(), b.begin() + 600);
  expect_error(cut, "is truncated");
  std::vector<uint8_t> big = b;
  const uint64_t huge = 1ull << 40;
  std::memcpy(big.data() + 456 + 32, &huge, 8);  // first section's size
  expect_error(big, "lies beyond the end of the file");
}

TEST(Xclbin, MismatchesAreListed) {
  std::string xml = fpga::kernel_xml();
  auto replace = [&](const std::string& from, const std::string& to) {
    xml.replace(xml.find(from), from.size(), to);
  };
  replace("offset=\"0x18\"", "offset=\"0x30\"");
  replace("name=\"status\" addressQualifier=\"1\"", "name=\"status\" addressQualifier=\"0\"");
  fpga::XclbinInfo info;
  fpga::parse_kernel_xml(xml, info, "k.xml");
  const auto p = fpga::check_against_register_map(info);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], "argument 1 (insn_addr) is at offset 0x30, the register map has 0x18");
  EXPECT_EQ(p[1], "argument 3 (status) must be a global memory pointer");
  fpga::XclbinInfo other;
  fpga::parse_kernel_xml("<kernel name=\"vadd\" hwControlProtocol=\"ap_ctrl_chain\"></kernel>",
                         other, "k.xml");
  EXPECT_THAT(fpga::check_against_register_map(other)[0],
              HasSubstr("kernel 'vadd' is not Weft's 'weft_kernel'"));
}

}  // namespace
}  // namespace weft::test
