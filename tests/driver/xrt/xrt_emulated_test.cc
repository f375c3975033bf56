// The xrt engine on the emulated board (label `rtl`): the host code that runs on a board
// (arena buffer, syncs, kernel arguments, status buffer, the shared register sequence) gives
// bit-exact results with the functional model and the rtl backend's cycles; a missing sync,
// a wrong bank, a kernel error bit and a run past its timeout are clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "driver/device.h"
#include "driver/launch.h"
#include "driver/xrt/xrt_seam.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "simulator/memory/fault_plan.h"
#include "tests/support/program_builder.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;
namespace reg = isa::reg;
constexpr std::chrono::seconds kTimeout(60);
// Clock cycles the kernel top adds to the core's run (RtlPathRunsTheKernelTopWithAFixedOverhead).
constexpr uint64_t kKernelTopOverhead = 88;

driver::DeviceOptions options(const char* cfg, const char* emulate) {
  driver::DeviceOptions o;
  o.layout = &isa::layout_for(cfg);
  o.platform = &isa::find_platform("zcu104");
  o.memory_bytes = 1 << 20;
  o.xrt_emulate = emulate;
  return o;
}

struct Outcome {
  std::vector<uint8_t> dram;
  driver::RunCounters counters;
};

Outcome run_on(driver::Device& dev, const Program& p) {
  const uint64_t a = dev.alloc(p.dram.size());
  EXPECT_EQ(a, 0u);
  dev.copy_to_device(a, p.dram.data(), p.dram.size());
  Outcome o;
  o.counters = driver::run(dev, p.insn_offset, p.insn_count, kTimeout);
  o.dram.resize(p.dram.size());
  dev.copy_from_device(a, o.dram.data(), o.dram.size());
  dev.free(a);  // so that the next run on this device gets address 0 again
  return o;
}

TEST(XrtEmulated, BitExactWithFunctionalAndCycleForCycleWithRtl) {
  for (const char* cfg : {"tiny", "gemm8x8", "vta"}) {
    for (uint64_t seed : {3, 17}) {
      SCOPED_TRACE(std::string(cfg) + " seed " + std::to_string(seed));
      const RandomProgram rp = random_program(isa::layout_for(cfg), seed);
      auto functional = driver::open_device("functional", options(cfg, ""));
      auto rtl = driver::open_device("rtl", options(cfg, ""));
      auto xrt_rtl = driver::open_device("xrt", options(cfg, "rtl"));
      auto xrt_cycle = driver::open_device("xrt", options(cfg, "cycle"));
      const Outcome f = run_on(*functional, rp.program);
      const Outcome r = run_on(*rtl, rp.program);
      const Outcome x = run_on(*xrt_rtl, rp.program);
      const Outcome c = run_on(*xrt_cycle, rp.program);
      EXPECT_EQ(x.dram, f.dram);
      EXPECT_EQ(c.dram, f.dram);
      EXPECT_GT(r.counters.cycles, 0u);
      EXPECT_EQ(x.counters.cycles, r.counters.cycles);
      EXPECT_EQ(c.counters.cycles, r.counters.cycles);
      EXPECT_EQ(x.counters.compute_busy, r.counters.compute_busy);
      EXPECT_EQ(x.counters.load_stall, r.counters.load_stall);
      EXPECT_EQ(x.counters.store_busy, r.counters.store_busy);
      EXPECT_EQ(xrt_rtl->run_details().dump(), rtl->run_details().dump());
    }
  }
}

TEST(XrtEmulated, StatusBufferHoldsTheRegisterImage) {
  auto board = driver::xrt::open_emulated_board("cycle", isa::layout_for("tiny"),
                                                isa::find_platform("sim"), 1 << 20);
  const RandomProgram rp = random_program(isa::layout_for("tiny"), 5);
  auto dram = board->alloc(rp.program.dram.size(), 0);
  auto status = board->alloc(4096, 0);
  std::memcpy(dram->host(), rp.program.dram.data(), rp.program.dram.size());
  dram->sync_to_device(0, dram->size());
  driver::xrt::Kernel& k = board->kernel();
  k.start(rp.program.insn_count, rp.program.insn_offset, *dram, *status);
  // What XRT would write to s_axi_control: each argument at its register-map offset.
  const std::vector<uint32_t> img = k.register_image();
  ASSERT_EQ(img.size(), reg::kKernelMapEnd / 4);
  EXPECT_EQ(img[reg::kInsnCount / 4], rp.program.insn_count);
  EXPECT_EQ(img[reg::kInsnAddr / 4], rp.program.insn_offset);
  EXPECT_EQ(img[reg::kDramBase / 4], dram->device_address());
  EXPECT_EQ(img[reg::kStatusAddr / 4], status->device_address());
  ASSERT_EQ(k.wait(kTimeout), driver::xrt::RunState::kCompleted);
  status->sync_from_device(0, 64);
  uint64_t cycles;
  std::memcpy(&cycles, status->host(), 8);
  EXPECT_GT(cycles, 0u);
  uint32_t err;
  std::memcpy(&err, status->host() + (reg::kError - reg::kCycles), 4);
  EXPECT_EQ(err, 0u);
}

TEST(XrtEmulated, MissingSyncIsCaught) {
  auto board = driver::xrt::open_emulated_board("cycle", isa::layout_for("tiny"),
                                                isa::find_platform("sim"), 1 << 20);
  const RandomProgram rp = random_program(isa::layout_for("tiny"), 5);
  auto dram = board->alloc(rp.program.dram.size(), 0);
  auto status = board->alloc(4096, 0);
  std::memcpy(dram->host(), rp.program.dram.data(), rp.program.dram.size());
  // no sync_to_device: on a board the kernel would read stale memory
  try {
    board->kernel().start(rp.program.insn_count, rp.program.insn_offset, *dram, *status);
    ADD_FAILURE() << "a run on unsynced memory was started";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("not synced to the device"));
  }
  // and the device copy is really separate: reading it back gives what the device holds
  dram->sync_from_device(0, dram->size());
  EXPECT_EQ(dram->host()[rp.program.insn_offset], 0u);
}

TEST(XrtEmulated, WrongBankIsAClearError) {
  driver::DeviceOptions o = options("tiny", "cycle");
  o.xrt_bank = 2;
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE() << "bank 2 accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("memory bank 2 is not connected to m_axi_gmem"));
  }
  auto board = driver::xrt::open_emulated_board("cycle", isa::layout_for("tiny"),
                                                isa::find_platform("sim"), 1 << 20);
  EXPECT_THROW(board->alloc(64, 1), UserError);
}

TEST(XrtEmulated, KernelErrorBitBecomesTheEnginesMessage) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  ProgramBuilder b(l);
  const int64_t uop = b.add_uops({isa::Uop{l.acc_depth - 1, 0, 0}});
  b.load_1d(isa::MemType::kUop, 0, uop, 1);
  b.gemm_reset(0, 1, Loops{2, 1, 1, 0, 0, 0, 0, 0});
  b.finish();
  const Program p = b.build();
  auto dev = driver::open_device("xrt", options("gemm8x8", "rtl"));
  try {
    run_on(*dev, p);
    ADD_FAILURE() << "the error bit was not reported";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("beyond the ACC buffer"));
  }
  // the device is usable afterwards
  const RandomProgram rp = random_program(l, 9);
  auto dev2 = driver::open_device("xrt", options("gemm8x8", "rtl"));
  EXPECT_GT(run_on(*dev2, rp.program).counters.cycles, 0u);
}

TEST(XrtEmulated, RunPastItsTimeoutIsAbortedThenReported) {
  const isa::Layout& l = isa::layout_for("tiny");
  ProgramBuilder b(l);
  const int64_t uop = b.add_uops({isa::Uop{0, 0, 0}});
  b.load_1d(isa::MemType::kUop, 0, uop, 1);
  b.gemm_reset(0, 1, Loops{16000, 16000, 0, 0, 0, 0, 0, 0});  // 256 M micro-ops
  b.finish();
  const Program p = b.build();
  auto dev = driver::open_device("xrt", options("tiny", "cycle"));
  dev->copy_to_device(dev->alloc(p.dram.size()), p.dram.data(), p.dram.size());
  const auto t0 = std::chrono::steady_clock::now();
  try {
    driver::run(*dev, p.insn_offset, p.insn_count, std::chrono::milliseconds(200));
    ADD_FAILURE() << "the run finished";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did not finish within 200 ms"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_EQ(dev->read_reg(reg::kControl) & reg::kApIdle, reg::kApIdle);  // idle again
}

// The rtl path runs the Verilated kernel top (hardware/fpga/weft_kernel.sv) where it is built:
// the core inside counts exactly rtl's cycles, and the whole kernel run (ap_start accepted to
// interrupt) adds a fixed number of clock cycles for the forwarded ap_start, the drain, the
// kernel's 16 reads of the core's registers and its status burst.
TEST(XrtEmulated, RtlPathRunsTheKernelTopWithAFixedOverhead) {
  for (const char* cfg : {"tiny", "gemm8x8"}) {
    SCOPED_TRACE(cfg);
    const isa::Layout& l = isa::layout_for(cfg);
    auto board = driver::xrt::open_emulated_board("rtl", l, isa::find_platform("zcu104"), 1 << 20);
    if (board->name().find("kernel top") == std::string::npos) {
      GTEST_SKIP() << "no kernel top built for " << cfg << ": " << board->name();
    }
    for (uint64_t seed : {3, 17}) {
      SCOPED_TRACE(seed);
      const RandomProgram rp = random_program(l, seed);
      auto dram = board->alloc(rp.program.dram.size(), 0);
      auto status = board->alloc(4096, 0);
      std::memcpy(dram->host(), rp.program.dram.data(), rp.program.dram.size());
      dram->sync_to_device(0, dram->size());
      std::memset(status->host(), 0xA5, 64);
      status->sync_to_device(0, 64);
      driver::xrt::Kernel& k = board->kernel();
      k.start(rp.program.insn_count, rp.program.insn_offset, *dram, *status);
      ASSERT_EQ(k.wait(kTimeout), driver::xrt::RunState::kCompleted);
      status->sync_from_device(0, 64);
      uint64_t cycles;
      std::memcpy(&cycles, status->host(), 8);
      auto rtl = driver::open_device("rtl", options(cfg, ""));
      const Outcome r = run_on(*rtl, rp.program);
      EXPECT_EQ(cycles, r.counters.cycles) << "the core's cycle counter in the status buffer";
      EXPECT_EQ(k.kernel_clock_cycles(), cycles + kKernelTopOverhead);
      dram->sync_from_device(0, dram->size());
      auto functional = driver::open_device("functional", options(cfg, ""));
      const Outcome f = run_on(*functional, rp.program);
      EXPECT_TRUE(std::equal(f.dram.begin(), f.dram.end(), dram->host()));
    }
  }
}

TEST(XrtEmulated, BusErrorResponseSetsTheKernelsErrorBit) {
  const isa::Layout& l = isa::layout_for("tiny");
  sim::FaultPlan plan = sim::parse_fault_plan("read:slverr#1");
  driver::DeviceOptions o = options("tiny", "rtl");
  o.faults = &plan;
  auto dev = driver::open_device("xrt", o);
  const RandomProgram rp = random_program(l, 4);
  try {
    run_on(*dev, rp.program);
    ADD_FAILURE() << "the bus error was not reported";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("AXI error response"));
    dev->free(0);  // the arena run_on allocated before the run failed
  }
  // the status buffer carried the bit; the next run on the same board starts clean
  plan.faults.clear();
  EXPECT_GT(run_on(*dev, rp.program).counters.cycles, 0u);
}

TEST(XrtEmulated, KernelTopRunPastItsTimeoutIsAbortedThenReported) {
  const isa::Layout& l = isa::layout_for("tiny");
  ProgramBuilder b(l);
  const int64_t uop = b.add_uops({isa::Uop{0, 0, 0}});
  b.load_1d(isa::MemType::kUop, 0, uop, 1);
  b.gemm_reset(0, 1, Loops{16000, 16000, 0, 0, 0, 0, 0, 0});  // 256 M micro-ops
  b.finish();
  const Program p = b.build();
  auto dev = driver::open_device("xrt", options("tiny", "rtl"));
  const uint64_t a = dev->alloc(p.dram.size());
  dev->copy_to_device(a, p.dram.data(), p.dram.size());
  try {
    driver::run(*dev, p.insn_offset, p.insn_count, std::chrono::milliseconds(200));
    ADD_FAILURE() << "the run finished";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did not finish within 200 ms"));
  }
  EXPECT_EQ(dev->read_reg(reg::kControl) & reg::kApIdle, reg::kApIdle);
  // a read that is never answered hangs the kernel's drain: also the timeout, then a clean run
  sim::FaultPlan plan = sim::parse_fault_plan("read:noresp#0");
  driver::DeviceOptions o = options("tiny", "rtl");
  o.faults = &plan;
  auto dev2 = driver::open_device("xrt", o);
  const RandomProgram rp = random_program(l, 6);
  const uint64_t a2 = dev2->alloc(rp.program.dram.size());
  try {
    dev2->copy_to_device(a2, rp.program.dram.data(), rp.program.dram.size());
    driver::run(*dev2, rp.program.insn_offset, rp.program.insn_count,
                std::chrono::milliseconds(200));
    ADD_FAILURE() << "a run with an unanswered read finished";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did not finish within 200 ms"));
  }
  plan.faults.clear();
  dev2->free(a2);
  const Outcome x = run_on(*dev2, rp.program);
  auto functional = driver::open_device("functional", options("tiny", ""));
  EXPECT_EQ(x.dram, run_on(*functional, rp.program).dram);
}

TEST(XrtEmulated, OptionsSayWhatIsMissing) {
  driver::DeviceOptions o = options("tiny", "");
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("needs --xclbin FILE"));
  }
  o.xrt_emulate = "gpu";
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'rtl' (the Verilated RTL) or 'cycle'"));
  }
  o.xrt_emulate = "";
  o.xclbin = "/nonexistent/weft.xclbin";
  try {
    driver::open_device("xrt", o);
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no such file"));
  }
}

}  // namespace
}  // namespace weft::test
