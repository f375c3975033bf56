// Fault injection (docs/reliability.md): AXI error responses (SLVERR, DECERR) on chosen
// addresses and bursts, a DMA that is never answered, a token-queue overflow, a device that
// times out and a run cancelled from the host midway, on the timed engines (the cycle model,
// and the RTL when it is built: its testbench serves the AXI master from the same memory
// model). Each must end in an error that names the module and the fault, in bounded time,
// leave the device idle and usable (the next run, without the fault, is correct) and leak
// nothing (the sanitizer run, scripts/sanitize.sh, checks that with LeakSanitizer).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "driver/launch.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "simulator/memory/fault_plan.h"
#include "tests/support/engines.h"
#include "tests/support/gemm_program.h"
#include "tests/support/program_builder.h"
#include "tests/support/program_check.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::AllOf;
using ::testing::HasSubstr;
namespace reg = isa::reg;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kTimeout{20000};

// A small GEMM with one load of each kind and one store, its tokens in VTA's style.
struct Gemm {
  Program p;
  uint64_t inp_addr, wgt_addr, out_addr;
  size_t load_inp, load_wgt, store;
};

Gemm small_gemm(const isa::Layout& l) {
  ProgramBuilder b(l);
  std::vector<int8_t> inp(l.inp_elem_bytes * 2), wgt(l.wgt_elem_bytes);
  for (size_t i = 0; i < inp.size(); ++i) inp[i] = static_cast<int8_t>(i % 7 - 3);
  for (size_t i = 0; i < wgt.size(); ++i) wgt[i] = static_cast<int8_t>(i % 5 - 2);
  const int64_t uop = b.add_uops({{0, 0, 0}, {1, 1, 0}});
  const int64_t in = b.add_int8(MemType::kInp, inp);
  const int64_t wg = b.add_int8(MemType::kWgt, wgt);
  const int64_t out = b.alloc(MemType::kOut, 2);
  Gemm g;
  g.inp_addr = uint64_t(in) * l.inp_elem_bytes;
  g.wgt_addr = uint64_t(wg) * l.wgt_elem_bytes;
  g.out_addr = uint64_t(out) * l.out_elem_bytes;
  b.load(MemType::kUop, 0, uop, 1, 2, 2);
  g.load_inp = b.load(MemType::kInp, 0, in, 1, 2, 2);
  g.load_wgt = b.load(MemType::kWgt, 0, wg, 1, 1, 1, {}, kPushNext);
  b.gemm_reset(0, 2, {}, kPopPrev);
  b.gemm(0, 2, {}, kPushNext);
  g.store = b.store(0, out, 1, 2, 2, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  g.p = b.build();
  return g;
}

std::string hex(uint64_t v) {
  char s[32];
  std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
  return s;
}

// Parameter: the engine name (cycle, rtl).
class FaultTest : public ::testing::TestWithParam<std::string> {
 protected:
  FaultTest() : l_(isa::layout_for("gemm8x8")), platform_(isa::find_platform("sim")) {
    options_.layout = &l_;
    options_.platform = &platform_;
    options_.memory_bytes = 1 << 20;
    options_.faults = &plan_;
    dev_ = driver::open_device(GetParam(), options_);
  }

  // Runs `p` at address 0 of the device; returns the error message ("" when it succeeded) and
  // the final image in `image`.
  std::string run(const Program& p, std::vector<uint8_t>* image = nullptr,
                  std::chrono::milliseconds timeout = kTimeout) {
    if (addr_ == UINT64_MAX) addr_ = dev_->alloc(p.dram.size());
    dev_->copy_to_device(addr_, p.dram.data(), p.dram.size());
    std::string err;
    try {
      driver::run(*dev_, addr_ + p.insn_offset, p.insn_count, timeout);
    } catch (const UserError& e) {
      err = e.what();
    }
    if (image) {
      image->resize(p.dram.size());
      dev_->copy_from_device(addr_, image->data(), image->size());
    }
    return err;
  }

  std::vector<uint8_t> golden(const Program& p) {
    std::vector<uint8_t> d = p.dram;
    sim::FunctionalSim(l_).run(d, p.insn_offset, p.insn_count);
    return d;
  }

  // After a fault: the device is idle, and the same program without the fault is correct.
  void expect_recovers(const Program& p) {
    EXPECT_NE(dev_->read_reg(reg::kControl) & reg::kApIdle, 0u);
    plan_.faults.clear();
    std::vector<uint8_t> image;
    EXPECT_EQ(run(p, &image), "");
    EXPECT_EQ(image, golden(p));
  }

  const isa::Layout& l_;
  const isa::Platform& platform_;
  sim::FaultPlan plan_;
  driver::DeviceOptions options_;
  std::unique_ptr<driver::Device> dev_;
  uint64_t addr_ = UINT64_MAX;
};

TEST_P(FaultTest, TheProgramIsCorrectWithoutFaults) {
  const Gemm g = small_gemm(l_);
  ASSERT_TRUE(check_protocol(g.p).ok());
  std::vector<uint8_t> image;
  EXPECT_EQ(run(g.p, &image), "");
  EXPECT_EQ(image, golden(g.p));
}

TEST_P(FaultTest, ReadSlverrOnALoadNamesTheLoadModuleAndAddress) {
  const Gemm g = small_gemm(l_);
  plan_ = sim::parse_fault_plan("read:slverr@" + hex(g.wgt_addr));
  const std::string err = run(g.p);
  EXPECT_THAT(err, AllOf(HasSubstr("AXI read burst"),
                         HasSubstr("of the load module (instruction " +
                                   std::to_string(g.load_wgt) + ")"),
                         HasSubstr("at address " + hex(g.wgt_addr)), HasSubstr("SLVERR"),
                         HasSubstr("injected fault")));
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrInternal});
  expect_recovers(g.p);
}

TEST_P(FaultTest, ReadDecerrOnTheFirstBurstHitsFetch) {
  const Gemm g = small_gemm(l_);
  plan_ = sim::parse_fault_plan("read:decerr#0");
  EXPECT_THAT(run(g.p), AllOf(HasSubstr("AXI read burst 0 of the fetch unit (instruction 0)"),
                              HasSubstr("at address " + hex(g.p.insn_offset)),
                              HasSubstr("DECERR (decode error")));
  expect_recovers(g.p);
}

TEST_P(FaultTest, WriteSlverrOnTheStoreNamesTheStoreModule) {
  const Gemm g = small_gemm(l_);
  plan_ = sim::parse_fault_plan("write:slverr@" + hex(g.out_addr));
  EXPECT_THAT(run(g.p), AllOf(HasSubstr("AXI write burst 0 of the store module (instruction " +
                                        std::to_string(g.store) + ")"),
                              HasSubstr("SLVERR (slave error) on BRESP")));
  expect_recovers(g.p);
}

TEST_P(FaultTest, WriteDecerrByBurstNumber) {
  const Gemm g = small_gemm(l_);
  plan_ = sim::parse_fault_plan("write:decerr#0");
  EXPECT_THAT(run(g.p), AllOf(HasSubstr("store module"), HasSubstr("DECERR")));
  expect_recovers(g.p);
}

TEST_P(FaultTest, ADmaThatNeverAnswersTimesOutInBoundedTime) {
  const Gemm g = small_gemm(l_);
  plan_ = sim::parse_fault_plan("read:noresp@" + hex(g.inp_addr));
  plan_.response_timeout = 5000;
  const auto t0 = Clock::now();
  EXPECT_THAT(run(g.p), AllOf(HasSubstr("of the load module (instruction " +
                                        std::to_string(g.load_inp) + ")"),
                              HasSubstr("got no response within 5000 cycles")));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  expect_recovers(g.p);
}

TEST_P(FaultTest, ATokenQueueOverflowNamesTheQueueAndTheModule) {
  // The compute module is busy with a long GEMM while the load module pushes depth + 1 tokens
  // onto load->compute with empty LOADs.
  ProgramBuilder b(l_);
  const int64_t uop = b.add_uops({{0, 0, 0}});
  b.load(MemType::kUop, 0, uop, 1, 1, 1);
  b.at(b.gemm_reset(0, 1)).iter_out = 200;
  const int depth = l_.config.token_queue_depth;
  for (int i = 0; i <= depth; ++i) b.load(MemType::kInp, 0, 0, 0, 0, 0, {}, kPushNext);
  for (int i = 0; i <= depth; ++i) b.gemm_reset(0, 0, {}, kPopPrev);
  b.finish();
  const Program p = b.build();
  EXPECT_THAT(run(p), AllOf(HasSubstr("token queue load->compute overflows"),
                            HasSubstr("the compute module has not popped")));
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrTokenOverflow});
  expect_recovers(small_gemm(l_).p);
}

TEST_P(FaultTest, ADeviceThatTimesOutIsStoppedAndUsableAgain) {
  const Program p = long_gemm_program(l_);
  const auto t0 = Clock::now();
  EXPECT_THAT(run(p, nullptr, std::chrono::milliseconds(50)),
              AllOf(HasSubstr("device '" + GetParam() + "' did not finish within 50 ms"),
                    HasSubstr("the run was stopped")));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(dev_->read_reg(reg::kControl) & reg::kApIdle, 0u);  // stopped, not still running
  expect_recovers(small_gemm(l_).p);
}

TEST_P(FaultTest, ARunCancelledFromTheHostMidwayEndsWithAnError) {
  const Program p = long_gemm_program(l_);
  const uint64_t addr = dev_->alloc(p.dram.size());
  addr_ = addr;
  dev_->copy_to_device(addr, p.dram.data(), p.dram.size());
  driver::launch(*dev_, addr + p.insn_offset, p.insn_count);
  const auto t0 = Clock::now();
  std::thread host([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    dev_->abort();
  });
  std::string err;
  try {
    driver::wait(*dev_, kTimeout);
  } catch (const UserError& e) {
    err = e.what();
  }
  host.join();
  EXPECT_THAT(err, HasSubstr("the run was cancelled before it finished"));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(dev_->read_reg(reg::kError), uint32_t{reg::kErrInternal});
  expect_recovers(small_gemm(l_).p);
}

TEST_P(FaultTest, AFaultOutsideTheProgramsTrafficChangesNothing) {
  const Gemm g = small_gemm(l_);
  sim::FaultPlan none;
  std::vector<uint8_t> clean, faulted;
  options_.faults = &none;
  auto dev = driver::open_device(GetParam(), options_);
  dev->alloc(g.p.dram.size());
  dev->copy_to_device(0, g.p.dram.data(), g.p.dram.size());
  const driver::RunCounters c0 = driver::run(*dev, g.p.insn_offset, g.p.insn_count, kTimeout);
  plan_ = sim::parse_fault_plan("read:slverr@0xF0000-0xF1000,write:decerr#99");
  EXPECT_EQ(run(g.p, &faulted), "");
  EXPECT_EQ(faulted, golden(g.p));
  EXPECT_EQ(dev_->read_reg(reg::kCycles), c0.cycles);
}

INSTANTIATE_TEST_SUITE_P(Engines, FaultTest,
                         ::testing::ValuesIn([] {
                           std::vector<std::string> e = {"cycle"};
                           for (const auto& n : test::engines_for("gemm8x8"))
                             if (n == "rtl") e.push_back(n);
                           return e;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(FaultPlan, ParsesAndRejects) {
  const sim::FaultPlan p = sim::parse_fault_plan("read:slverr@0x1000-0x2000,write:noresp#3");
  ASSERT_EQ(p.faults.size(), 2u);
  EXPECT_EQ(p.faults[0].addr_lo, 0x1000u);
  EXPECT_EQ(p.faults[0].addr_hi, 0x2000u);
  EXPECT_EQ(p.faults[1].kind, sim::AxiFaultKind::kNoResponse);
  EXPECT_EQ(p.faults[1].burst, 3);
  EXPECT_THROW(sim::parse_fault_plan(""), UserError);
  EXPECT_THAT([] { sim::parse_fault_plan("read:oops"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("kind 'oops'")));
  EXPECT_THAT([] { sim::parse_fault_plan("dma:slverr"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("channel 'dma'")));
  EXPECT_THROW(sim::parse_fault_plan("read:slverr@0x20-0x10"), UserError);
  EXPECT_THROW(sim::parse_fault_plan("read:slverr@zz"), UserError);
}

}  // namespace
}  // namespace weft::test
