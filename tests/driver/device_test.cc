// The driver's register protocol (DESIGN.md §4) on the simulator-backed devices, through
// driver::open_device and driver::launch/wait/run: ap_idle before a start, ap_done after a run
// (cleared by reading it), the counter registers against a direct cycle-model run, repeated
// runs, the sticky error register and the simulator's message on a bad program, the DRAM base
// register, and the errors of device memory, registers and engine names.
#include "driver/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "driver/launch.h"
#include "driver/rtl_device.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/engines.h"
#include "tests/support/gemm_program.h"
#include "tests/support/program_builder.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace reg = isa::reg;

constexpr uint64_t kMemoryBytes = 1 << 20;
constexpr std::chrono::milliseconds kTimeout{10000};

// Parameter: the engine name.
class DeviceTest : public ::testing::TestWithParam<std::string> {
 protected:
  DeviceTest() : layout_(isa::layout_for("gemm8x8")), platform_(isa::find_platform("sim")) {
    options_.layout = &layout_;
    options_.platform = &platform_;
    options_.memory_bytes = kMemoryBytes;
    options_.xrt_emulate = "cycle";  // the xrt engine on its emulated board (others ignore it)
    dev_ = driver::open_device(GetParam(), options_);
  }

  // The timed engines: the cycle model and the RTL, which must agree on every cycle.
  // The xrt engine's emulated board runs the cycle model here.
  bool is_cycle() const { return GetParam() == "cycle" || GetParam() == "rtl" || GetParam() == "xrt"; }

  // Copies an image into a fresh allocation; returns its device address.
  uint64_t upload(const std::vector<uint8_t>& image) {
    const uint64_t addr = dev_->alloc(image.size());
    dev_->copy_to_device(addr, image.data(), image.size());
    return addr;
  }
  std::vector<uint8_t> download(uint64_t addr, uint64_t bytes) {
    std::vector<uint8_t> out(bytes);
    dev_->copy_from_device(addr, out.data(), bytes);
    return out;
  }
  // Polls the control register until ap_done (polling hands the run to the device's worker
  // thread, as on hardware); returns the value that had it (reading clears ap_done).
  uint32_t await_done() {
    uint32_t ctrl = 0;
    while (((ctrl = dev_->read_reg(reg::kControl)) & reg::kApDone) == 0) std::this_thread::yield();
    return ctrl;
  }
  uint64_t read64(uint32_t offset) {
    const uint64_t lo = dev_->read_reg(offset);
    return lo | uint64_t{dev_->read_reg(offset + 4)} << 32;
  }
  // The final image the functional model gives.
  std::vector<uint8_t> expected_image(const Program& p) {
    sim::FunctionalSim f(layout_);
    std::vector<uint8_t> dram = p.dram;
    f.run(dram, p.insn_offset, p.insn_count);
    return dram;
  }
  // The message the engine itself gives for a bad program.
  std::string engine_error(const Program& p) {
    std::vector<uint8_t> dram = p.dram;
    try {
      if (is_cycle()) {
        sim::cycle::CycleSim(layout_, platform_).run(dram, p.insn_offset, p.insn_count);
      } else {
        sim::FunctionalSim(layout_).run(dram, p.insn_offset, p.insn_count);
      }
    } catch (const sim::ProgramError& e) {
      return e.what();
    }
    ADD_FAILURE() << "the engine accepted the program";
    return "";
  }
  Program deadlocking_program() {
    ProgramBuilder b(layout_);
    b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
    b.finish();
    return b.build();
  }

  const isa::Layout& layout_;
  const isa::Platform& platform_;
  driver::DeviceOptions options_;
  std::unique_ptr<driver::Device> dev_;
};

TEST_P(DeviceTest, OpensByName) { EXPECT_EQ(dev_->name(), GetParam()); }

TEST_P(DeviceTest, IdleAndErrorFreeBeforeTheFirstStart) {
  const uint32_t ctrl = dev_->read_reg(reg::kControl);
  EXPECT_NE(ctrl & reg::kApIdle, 0u);
  EXPECT_EQ(ctrl & (reg::kApStart | reg::kApDone), 0u);
  EXPECT_EQ(dev_->read_reg(reg::kError), 0u);
}

TEST_P(DeviceTest, LaunchProgramsTheArgumentRegisters) {
  const RandomProgram rp = random_program(layout_, 5);
  const uint64_t addr = upload(rp.program.dram);
  ASSERT_EQ(addr, 0u);
  driver::launch(*dev_, rp.program.insn_offset, rp.program.insn_count);
  EXPECT_EQ(read64(reg::kInsnCount), rp.program.insn_count);
  EXPECT_EQ(read64(reg::kInsnAddr), rp.program.insn_offset);
  EXPECT_EQ(read64(reg::kDramBase), 0u);
}

TEST_P(DeviceTest, ApDoneIsSetAfterARunAndClearsOnRead) {
  const RandomProgram rp = random_program(layout_, 5);
  const uint64_t addr = upload(rp.program.dram);
  driver::launch(*dev_, rp.program.insn_offset, rp.program.insn_count);
  const uint32_t first = await_done();
  EXPECT_NE(first & reg::kApDone, 0u);
  EXPECT_NE(first & reg::kApIdle, 0u);
  const uint32_t second = dev_->read_reg(reg::kControl);
  EXPECT_EQ(second & reg::kApDone, 0u);
  EXPECT_NE(second & reg::kApIdle, 0u);
  EXPECT_EQ(dev_->read_reg(reg::kError), 0u);
  EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
}

// `wait` lets a simulator run the run on the caller's thread (Device::run_here): the run has
// ended when run_here returns, and nothing is left for another call. The xrt engine's board
// runs on its own and says so.
TEST_P(DeviceTest, RunHereEndsTheRunOnTheCallingThread) {
  using End = driver::Device::HereEnd;
  const RandomProgram rp = random_program(layout_, 6);
  const uint64_t addr = upload(rp.program.dram);
  driver::launch(*dev_, rp.program.insn_offset, rp.program.insn_count);
  const End end = dev_->run_here(std::chrono::steady_clock::now() + kTimeout);
  if (GetParam() == "xrt") {
    EXPECT_EQ(end, End::kNotHere);
    await_done();
  } else {
    EXPECT_EQ(end, End::kEnded);
    EXPECT_NE(dev_->read_reg(reg::kControl) & reg::kApDone, 0u);  // already done: no wait
    EXPECT_EQ(dev_->run_here(std::chrono::steady_clock::now() + kTimeout), End::kNotHere);
  }
  EXPECT_EQ(dev_->read_reg(reg::kError), 0u);
  EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
}

// A run still going at run_here's deadline is stopped by the device's own thread, as abort()
// stops it, and the device is usable again.
TEST_P(DeviceTest, RunHereStopsARunAtItsDeadline) {
  const Program p = long_gemm_program(layout_);
  upload(p.dram);
  driver::launch(*dev_, p.insn_offset, p.insn_count);
  const auto t0 = std::chrono::steady_clock::now();
  const auto end = dev_->run_here(t0 + std::chrono::milliseconds(30));
  if (GetParam() == "xrt") {  // the board runs on its own: the host stops it
    EXPECT_EQ(end, driver::Device::HereEnd::kNotHere);
    dev_->abort();
  } else {
    EXPECT_EQ(end, driver::Device::HereEnd::kDeadline);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(dev_->read_reg(reg::kControl) & reg::kApIdle, 0u);
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrInternal});
  const RandomProgram rp = random_program(layout_, 7);
  const uint64_t addr = upload(rp.program.dram);
  driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout, addr);
  EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
}

TEST_P(DeviceTest, RunGivesTheFunctionalModelsImage) {
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomProgram rp = random_program(layout_, seed);
    const uint64_t addr = upload(rp.program.dram);
    driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout, addr);
    EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
    dev_->free(addr);
  }
}

TEST_P(DeviceTest, CounterRegistersMatchTheEngine) {
  const RandomProgram rp = random_program(layout_, 9);
  upload(rp.program.dram);
  const driver::RunCounters c =
      driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout);
  EXPECT_EQ(read64(reg::kCycles), c.cycles);
  if (!is_cycle()) {
    EXPECT_EQ(c.cycles, 0u);  // the functional model has no time
    return;
  }
  std::vector<uint8_t> dram = rp.program.dram;
  const sim::cycle::CycleStats s = sim::cycle::CycleSim(layout_, platform_)
                                       .run(dram, rp.program.insn_offset, rp.program.insn_count);
  EXPECT_EQ(c.cycles, s.cycles);
  auto stall = [](const sim::cycle::ModuleCycles& m) { return m.total() - m.busy - m.idle; };
  EXPECT_EQ(c.load_busy, s.load.busy);
  EXPECT_EQ(c.load_stall, stall(s.load));
  EXPECT_EQ(c.compute_busy, s.compute.busy);
  EXPECT_EQ(c.compute_stall, stall(s.compute));
  EXPECT_EQ(c.store_busy, s.store.busy);
  EXPECT_EQ(c.store_stall, stall(s.store));
  EXPECT_EQ(dev_->run_details().value("cycles", uint64_t{0}), s.cycles);
}

TEST_P(DeviceTest, ASecondRunGivesTheSameResult) {
  const RandomProgram rp = random_program(layout_, 4);
  const uint64_t addr = upload(rp.program.dram);
  const driver::RunCounters c1 =
      driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout);
  const std::vector<uint8_t> image1 = download(addr, rp.program.dram.size());
  // Again on the output of the first run (the program overwrites what it stores) ...
  const driver::RunCounters c2 =
      driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout);
  EXPECT_EQ(download(addr, rp.program.dram.size()), image1);
  // ... and on a fresh copy of the input.
  dev_->copy_to_device(addr, rp.program.dram.data(), rp.program.dram.size());
  const driver::RunCounters c3 =
      driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout);
  EXPECT_EQ(download(addr, rp.program.dram.size()), image1);
  EXPECT_EQ(image1, expected_image(rp.program));
  EXPECT_EQ(c1.cycles, c2.cycles);
  EXPECT_EQ(c1.cycles, c3.cycles);
  EXPECT_EQ(c1.compute_busy, c3.compute_busy);
}

TEST_P(DeviceTest, BadProgramSetsTheErrorRegisterAndWaitThrowsTheEnginesMessage) {
  const Program bad = deadlocking_program();
  upload(bad.dram);
  const std::string expected = engine_error(bad);
  driver::launch(*dev_, bad.insn_offset, bad.insn_count);
  try {
    driver::wait(*dev_, kTimeout);
    ADD_FAILURE() << "wait did not throw";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
    EXPECT_THAT(e.what(), HasSubstr("load->compute queue, which is empty"));
  }
  EXPECT_EQ(dev_->error_detail(), expected);
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrDeadlock});  // sticky
  EXPECT_NE(dev_->read_reg(reg::kControl) & reg::kApIdle, 0u);
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrDeadlock});  // sticky
}

TEST_P(DeviceTest, ErrorRegisterNamesTheInstruction) {
  ProgramBuilder b(layout_);
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  b.load(MemType::kInp, layout_.inp_depth, 0, 1, 1, 1);
  b.finish();
  const Program bad = b.build();
  upload(bad.dram);
  EXPECT_THROW(driver::run(*dev_, bad.insn_offset, bad.insn_count, kTimeout), UserError);
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrSramRange});
  EXPECT_EQ(dev_->read_reg(reg::kErrorInsn), 1u);
  EXPECT_THAT(dev_->error_detail(), HasSubstr("instruction 1 (LOAD INP): field 'sram_base'"));
}

TEST_P(DeviceTest, AGoodRunAfterAnErrorClearsTheErrorRegister) {
  const Program bad = deadlocking_program();
  const uint64_t bad_addr = upload(bad.dram);
  EXPECT_THROW(driver::run(*dev_, bad_addr + bad.insn_offset, bad.insn_count, kTimeout), UserError);
  const RandomProgram rp = random_program(layout_, 6);
  const uint64_t addr = upload(rp.program.dram);
  driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout, addr);
  EXPECT_EQ(dev_->read_reg(reg::kError), 0u);
  EXPECT_EQ(dev_->error_detail(), "");
  EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
}

// With a DRAM base, every address of the program (instructions included) is relative to it;
// memory below the base is untouched.
TEST_P(DeviceTest, DramBaseOffsetsEveryAccess) {
  const std::vector<uint8_t> guard(100, 0x5A);
  const uint64_t guard_addr = upload(guard);
  const RandomProgram rp = random_program(layout_, 8);
  const uint64_t addr = upload(rp.program.dram);
  ASSERT_EQ(guard_addr, 0u);
  ASSERT_EQ(addr % 64, 0u);
  ASSERT_GT(addr, 0u);
  driver::run(*dev_, rp.program.insn_offset, rp.program.insn_count, kTimeout, addr);
  EXPECT_EQ(read64(reg::kDramBase), addr);
  EXPECT_EQ(download(addr, rp.program.dram.size()), expected_image(rp.program));
  EXPECT_EQ(download(guard_addr, guard.size()), guard);
}

// A run longer than the timeout: wait reports it, and closing the device cancels the run
// promptly instead of waiting for it.
TEST_P(DeviceTest, WaitTimesOutAndClosingCancelsTheRun) {
  const Program p = long_gemm_program(layout_);
  upload(p.dram);
  driver::launch(*dev_, p.insn_offset, p.insn_count);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THAT([&] { driver::wait(*dev_, std::chrono::milliseconds(50)); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("did not finish within 50 ms")));
  dev_.reset();  // cancels and joins the worker
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST_P(DeviceTest, DramBaseBeyondDeviceMemory) {
  driver::launch(*dev_, 0, 1, kMemoryBytes + 64);
  try {
    driver::wait(*dev_, kTimeout);
    ADD_FAILURE() << "wait did not throw";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("DRAM base " + std::to_string(kMemoryBytes + 64)));
  }
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrDramRange});
}

TEST_P(DeviceTest, WaitTimesOutWhenNothingWasStarted) {
  try {
    driver::wait(*dev_, std::chrono::milliseconds(5));
    ADD_FAILURE() << "wait did not throw";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("'" + GetParam() + "'"), HasSubstr("did not finish within 5 ms")));
  }
}

TEST_P(DeviceTest, AllocationsAreAlignedAndReused) {
  const uint64_t a = dev_->alloc(10);
  const uint64_t b = dev_->alloc(100);
  const uint64_t c = dev_->alloc(1);
  EXPECT_THAT((std::vector<uint64_t>{a, b, c}), ElementsAre(0u, 64u, 192u));
  dev_->free(b);
  EXPECT_EQ(dev_->alloc(64), 64u);  // first fit
  EXPECT_EQ(dev_->alloc(kMemoryBytes - 256), 256u);
}

TEST_P(DeviceTest, MemoryErrors) {
  EXPECT_THROW(dev_->alloc(kMemoryBytes + 1), UserError);
  const uint64_t a = dev_->alloc(kMemoryBytes / 2);
  EXPECT_THROW(dev_->alloc(kMemoryBytes / 2 + 64), UserError);
  try {
    dev_->free(a + 64);
    ADD_FAILURE() << "free of a non-allocation did not throw";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("which is not an allocation"));
  }
  dev_->free(a);
  EXPECT_THROW(dev_->free(a), UserError);  // twice

  uint8_t buf[16] = {};
  try {
    dev_->copy_to_device(kMemoryBytes - 8, buf, 16);
    ADD_FAILURE() << "copy beyond memory did not throw";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is outside the " + std::to_string(kMemoryBytes) +
                                    "-byte device memory"));
  }
  EXPECT_THROW(dev_->copy_from_device(kMemoryBytes - 8, buf, 16), UserError);
  EXPECT_THROW(dev_->copy_from_device(kMemoryBytes + 1, buf, 0), UserError);
  EXPECT_THROW(dev_->copy_to_device(~uint64_t{0} - 4, buf, 16), UserError);  // wraps around
  EXPECT_NO_THROW(dev_->copy_to_device(kMemoryBytes - 16, buf, 16));
  EXPECT_NO_THROW(dev_->copy_from_device(kMemoryBytes, buf, 0));
}

// A huge size must not wrap the allocator's address arithmetic into an overlapping block.
TEST_P(DeviceTest, AllocOfAHugeSizeFailsEvenAfterOtherAllocations) {
  dev_->alloc(10);
  EXPECT_THROW(dev_->alloc(~uint64_t{0}), UserError);
  EXPECT_THROW(dev_->alloc(~uint64_t{0} - 100), UserError);
}

TEST_P(DeviceTest, RegisterOffsetErrors) {
  EXPECT_THROW(dev_->read_reg(reg::kMapEnd), UserError);
  EXPECT_THROW(dev_->read_reg(2), UserError);
  EXPECT_THROW(dev_->write_reg(reg::kMapEnd + 4, 0), UserError);
}

TEST_P(DeviceTest, CounterAndErrorRegistersAreReadOnly) {
  dev_->write_reg(reg::kCycles, 1234);
  dev_->write_reg(reg::kError, reg::kErrDeadlock);
  EXPECT_EQ(dev_->read_reg(reg::kCycles), 0u);
  EXPECT_EQ(dev_->read_reg(reg::kError), 0u);
}

// Every built engine: functional, cycle, and rtl when Verilator was found.
INSTANTIATE_TEST_SUITE_P(Engines, DeviceTest, ::testing::ValuesIn(test::engines_for("gemm8x8")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(OpenDevice, KnowsTheSimulatorBackends) {
  if (driver::rtl_backend_built()) {
    EXPECT_THAT(driver::device_names(), ElementsAre("functional", "cycle", "rtl", "xrt"));
  } else {
    EXPECT_THAT(driver::device_names(), ElementsAre("functional", "cycle", "xrt"));
  }
}

TEST(OpenDevice, UnknownEngineNamesTheAvailableOnes) {
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  try {
    driver::open_device("gpu", o);
    ADD_FAILURE() << "open_device accepted 'gpu'";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown engine 'gpu' (available: functional, cycle"));
  }
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE() << "open_device accepted 'xrt'";
  } catch (const UserError& e) {
    // built now: without --xclbin or --xrt-emulate it says what it needs
    EXPECT_THAT(e.what(), HasSubstr("needs --xclbin"));
  }
}

// Without Verilator the rtl engine says how to get it; with it, a platform whose bus differs
// from the RTL's is refused with a clear message.
TEST(OpenDevice, RtlEngineExplainsWhatItCannotRun) {
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("pynq");
  try {
    driver::open_device("rtl", o);
    ADD_FAILURE() << "open_device accepted 'rtl' on pynq";
  } catch (const UserError& e) {
    if (driver::rtl_backend_built()) {
      EXPECT_THAT(e.what(), HasSubstr("128-bit AXI bus"));
      EXPECT_THAT(e.what(), HasSubstr("'pynq'"));
    } else {
      EXPECT_THAT(e.what(), HasSubstr("'rtl' engine is not built"));
    }
  }
}

// The cycle counter register equals the cycle model's count on every configuration.
TEST(CycleDevice, CycleRegisterMatchesACycleModelRunOnEveryConfig) {
  for (const isa::HwConfig& cfg : isa::shipped_configs()) {
    SCOPED_TRACE(cfg.name);
    const isa::Layout& l = isa::layout_for(cfg.name);
    driver::DeviceOptions o;
    o.layout = &l;
    o.platform = &isa::find_platform("zcu104");
    o.memory_bytes = kMemoryBytes;
    const std::unique_ptr<driver::Device> dev = driver::open_device("cycle", o);
    const RandomProgram rp = random_program(l, 12);
    dev->copy_to_device(dev->alloc(rp.program.dram.size()), rp.program.dram.data(),
                        rp.program.dram.size());
    const driver::RunCounters c =
        driver::run(*dev, rp.program.insn_offset, rp.program.insn_count, kTimeout);
    std::vector<uint8_t> dram = rp.program.dram;
    const sim::cycle::CycleStats s = sim::cycle::CycleSim(l, *o.platform)
                                         .run(dram, rp.program.insn_offset, rp.program.insn_count);
    EXPECT_EQ(c.cycles, s.cycles);
  }
}

}  // namespace
}  // namespace weft::test
