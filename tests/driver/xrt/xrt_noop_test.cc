// The real XRT library (libxrt_coreutil) without a board (label `unit`): XRT's noop device
// (XCL_EMULATION_MODE=noop) loads the synthetic .xclbin generated from the register
// description; the tests check the argument offsets XRT reads from it, the register image XRT
// would write to s_axi_control, and the xrt engine's errors. CTest runs each suite in its own
// process with its own environment (tests/driver/CMakeLists.txt): XRT reads it once. Where the
// noop device is unavailable (newer XRT removed it) the tests skip, saying so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <xclbin.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "driver/device.h"
#include "driver/launch.h"
#include "driver/xrt/xrt_seam.h"
#include "hardware/fpga/xclbin.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;
namespace reg = isa::reg;

// Our axlf offsets are XRT's (hardware/fpga/xclbin.cc reads them by number).
static_assert(offsetof(axlf, m_header) == 304);
static_assert(offsetof(axlf, m_sections) == 456);
static_assert(offsetof(axlf_header, uuid) == 112);
static_assert(offsetof(axlf_header, m_numSections) == 144);

std::unique_ptr<driver::xrt::Board> open_or_skip(const std::string& file, std::string* why) {
  try {
    return driver::xrt::open_xrt_board(file, 0);
  } catch (const UserError& e) {
    const std::string m = e.what();
    if (m.find("no XRT device") != std::string::npos) {
      *why = "XRT's noop device is not available here: " + m;
      return nullptr;
    }
    throw;
  }
}

#define OPEN_OR_SKIP(var, file)          \
  std::string why_;                      \
  auto var = open_or_skip(file, &why_);  \
  if (!var) GTEST_SKIP() << why_;

TEST(XrtNoop, ArgumentOffsetsAndRegisterImageAreTheRegisterMaps) {
  OPEN_OR_SKIP(board, WEFT_SYNTHETIC_XCLBIN);
  driver::xrt::Kernel& k = board->kernel();
  for (const reg::KernelArg& a : reg::kKernelArgs) {
    EXPECT_EQ(k.arg_offset(a.index), a.offset) << a.name;
    if (a.pointer) {
      EXPECT_EQ(k.arg_bank(a.index), 0) << a.name;
    }
  }
  auto dram = board->alloc(1 << 20, k.arg_bank(2));
  auto status = board->alloc(4096, k.arg_bank(3));
  dram->sync_to_device(0, dram->size());
  k.start(0x123456789ull, 0x40, *dram, *status);
  const std::vector<uint32_t> img = k.register_image();
  ASSERT_GE(img.size(), reg::kKernelMapEnd / 4);
  EXPECT_EQ(img[reg::kInsnCount / 4], 0x23456789u);
  EXPECT_EQ(img[reg::kInsnCount / 4 + 1], 0x1u);
  EXPECT_EQ(img[reg::kInsnAddr / 4], 0x40u);
  const uint64_t d = dram->device_address(), s = status->device_address();
  EXPECT_EQ(img[reg::kDramBase / 4], static_cast<uint32_t>(d));
  EXPECT_EQ(img[reg::kDramBase / 4 + 1], static_cast<uint32_t>(d >> 32));
  EXPECT_EQ(img[reg::kStatusAddr / 4], static_cast<uint32_t>(s));
  EXPECT_EQ(img[reg::kStatusAddr / 4 + 1], static_cast<uint32_t>(s >> 32));
  // nothing else is written: the counters and the error register are the kernel's
  for (uint32_t off = reg::kCycles; off < reg::kMapEnd; off += 4) EXPECT_EQ(img[off / 4], 0u) << off;
  EXPECT_EQ(k.wait(std::chrono::seconds(10)), driver::xrt::RunState::kCompleted);
}

TEST(XrtNoop, AKernelThatWritesNoStatusIsAnError) {
  // The noop device completes every run without executing anything: the status buffer keeps
  // the pattern the engine put there, which the engine reports instead of reading zeros.
  std::string why;
  if (!open_or_skip(WEFT_SYNTHETIC_XCLBIN, &why)) GTEST_SKIP() << why;
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = 1 << 20;
  o.xclbin = WEFT_SYNTHETIC_XCLBIN;
  auto dev = driver::open_device("xrt", o);
  EXPECT_EQ(dev->name(), "xrt");
  const uint64_t a = dev->alloc(4096);
  std::vector<uint8_t> zeros(4096, 0);
  dev->copy_to_device(a, zeros.data(), zeros.size());
  try {
    driver::run(*dev, 0, 1, std::chrono::seconds(10));
    ADD_FAILURE() << "a run without a status was accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("without writing its status buffer"));
  }
}

TEST(XrtNoop, WrongBankIsAClearError) {
  std::string why;
  if (!open_or_skip(WEFT_SYNTHETIC_XCLBIN, &why)) GTEST_SKIP() << why;
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.xclbin = WEFT_SYNTHETIC_XCLBIN;
  o.xrt_bank = 3;
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE() << "bank 3 accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("memory bank 3 is not connected to m_axi_gmem of weft_kernel"));
  }
}

TEST(XrtNoop, MismatchingXclbinIsRejected) {
  std::ifstream in(WEFT_SYNTHETIC_XCLBIN, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string text(b.begin(), b.end());
  const size_t at = text.find("offset=\"0x68\"");
  ASSERT_NE(at, std::string::npos);
  std::memcpy(b.data() + at, "offset=\"0x70\"", 13);  // the status argument moved
  const std::string path = testing::TempDir() + "weft_moved_status.xclbin";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
  // weft xclbin-info's check, without a device
  const auto problems = fpga::check_against_register_map(fpga::parse_xclbin(b, path));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("argument 3 (status) is at offset 0x70"));
  // and the engine's, through XRT
  std::string why;
  try {
    auto board = open_or_skip(path, &why);
    if (!board) GTEST_SKIP() << why;
    ADD_FAILURE() << "a moved argument was accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("argument 3 (status) of kernel weft_kernel is at register "
                                    "offset 112; Weft's register map has it at 104"));
  }
}

// Run with XILINX_XRT set and no emulation mode: there is no board here.
TEST(XrtNoDevice, OpeningDeviceZeroIsAClearError) {
  unsetenv("XCL_EMULATION_MODE");
  try {
    driver::xrt::open_xrt_board(WEFT_SYNTHETIC_XCLBIN, 0);
    GTEST_SKIP() << "an XRT device is present on this machine";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no XRT device 0"));
  }
}

// Run without XILINX_XRT.
TEST(XrtNoRuntime, MissingXilinxXrtIsAClearError) {
  unsetenv("XILINX_XRT");
  try {
    driver::xrt::open_xrt_board(WEFT_SYNTHETIC_XCLBIN, 0);
    ADD_FAILURE() << "opened without XILINX_XRT";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("XILINX_XRT is not set"));
  }
}

}  // namespace
}  // namespace weft::test
