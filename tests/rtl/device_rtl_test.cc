// The rtl backend behind the driver's Device interface (label `rtl`): the same STATS fields
// as the cycle backend with the same values (the two are cycle-exact), a waveform on request,
// and clear errors for what it cannot run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "driver/device.h"
#include "driver/launch.h"
#include "driver/rtl_device.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/spec.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;
constexpr std::chrono::seconds kTimeout(60);

nlohmann::ordered_json run_on(driver::Device& dev, const Program& p) {
  dev.copy_to_device(dev.alloc(p.dram.size()), p.dram.data(), p.dram.size());
  driver::run(dev, p.insn_offset, p.insn_count, kTimeout);
  return dev.run_details();
}

TEST(RtlDevice, RunDetailsEqualTheCycleBackendsFieldForField) {
  for (const char* cfg : {"tiny", "gemm8x8", "vta"}) {
    SCOPED_TRACE(cfg);
    driver::DeviceOptions o;
    o.layout = &isa::layout_for(cfg);
    o.platform = &isa::find_platform("zcu104");  // another 128-bit platform: other latencies
    o.memory_bytes = 1 << 20;
    const RandomProgram rp = random_program(*o.layout, 21);
    auto cycle = driver::open_device("cycle", o);
    auto rtl = driver::open_device("rtl", o);
    const nlohmann::ordered_json c = run_on(*cycle, rp.program);
    const nlohmann::ordered_json r = run_on(*rtl, rp.program);
    EXPECT_EQ(r.dump(), c.dump());
    EXPECT_GT(r.value("cycles", uint64_t{0}), 0u);
  }
}

TEST(RtlDevice, WaveFileIsWrittenOnRequest) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "weft_rtl_wave_test.fst").string();
  std::filesystem::remove(path);
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = 1 << 20;
  {
    auto dev = driver::make_rtl_device(o, path);
    run_on(*dev, random_program(*o.layout, 5).program);
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
  std::filesystem::remove(path);
}

TEST(RtlDevice, UnalignedInstructionStreamIsAClearError) {
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = 1 << 16;
  auto dev = driver::open_device("rtl", o);
  const RandomProgram rp = random_program(*o.layout, 2);
  std::vector<uint8_t> img(rp.program.dram.size() + 8, 0);
  std::copy(rp.program.dram.begin() + rp.program.insn_offset,
            rp.program.dram.begin() + rp.program.insn_offset + 16 * rp.program.insn_count,
            img.begin() + 8);
  dev->copy_to_device(dev->alloc(img.size()), img.data(), img.size());
  EXPECT_THAT([&] { driver::run(*dev, 8, 1, kTimeout); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("16-byte aligned")));
}

}  // namespace
}  // namespace weft::test
