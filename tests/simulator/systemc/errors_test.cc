// Program errors in the SystemC model end the run the way hardware does: the sticky error
// register holds the bit (and 0x64 the instruction), ap_done is set and the interrupt rises,
// with the cycle model's full message at hand: a deadlock, an access beyond the DRAM window,
// a DMA that the platform's bus answers with an error, an empty program. The next good program
// then runs normally.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "simulator/common/program_error.h"
#include "tests/simulator/systemc/test_platform.h"
#include "tests/support/program_builder.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

namespace reg = isa::reg;
using isa::MemType;
using ::testing::HasSubstr;

class SystemcErrorsTest : public ::testing::Test {
 protected:
  const std::string config_ = "gemm8x8";
  const isa::Layout& l_ = isa::layout_for(config_);
  TestPlatform& tp_ = TestPlatform::get();

  // Runs `p` (loaded at memory offset `offset`) with the window starting at `dram_base`.
  RegisterRun run(const Program& p, uint64_t offset, uint64_t dram_base) {
    tp_.load(offset, p.dram);
    RegisterRun r;
    tp_.run_host([&] { r = tp_.run_registers(config_, dram_base, p.insn_offset, p.insn_count); });
    EXPECT_EQ(r.control_at_irq, reg::kApDone | reg::kApIdle | reg::kApReady)
        << "an error must end the run with ap_done and the interrupt";
    EXPECT_TRUE(r.irq_low_after_clear);
    return r;
  }

  // A good program runs normally after an error.
  void expect_recovers() {
    const Program p = random_program(l_, 11).program;
    const RegisterRun r = run(p, 0, TestPlatform::kMemBase);
    EXPECT_EQ(r.error, 0u) << tp_.accel(config_).error_detail();
    EXPECT_GT(r.cycles, 0u);
  }
};

TEST_F(SystemcErrorsTest, DeadlockSetsTheErrorRegisterAndRaisesTheInterrupt) {
  ProgramBuilder b(l_);
  b.store(0, 0, 0, 0, 0, kPopPrev);  // waits for compute->store, which never comes
  b.finish(kPopNext);
  const RegisterRun r = run(b.build(), 0, TestPlatform::kMemBase);
  EXPECT_EQ(r.error, reg::kErrDeadlock);
  EXPECT_EQ(r.error_insn, static_cast<uint32_t>(sim::ProgramError::kNoInsn));
  EXPECT_EQ(r.cycles, 0u);
  EXPECT_THAT(tp_.accel(config_).error_detail(), HasSubstr("deadlock"));
  expect_recovers();
}

TEST_F(SystemcErrorsTest, LoadBeyondTheDramWindowIsADramRangeError) {
  ProgramBuilder b(l_);
  const size_t load = b.load_1d(MemType::kInp, 0, 0, 1);
  b.finish();
  // Element index of the first byte past the window.
  b.at(load).dram_base =
      static_cast<int64_t>(TestPlatform::kWindowBytes / l_.elem_bytes(MemType::kInp));
  const RegisterRun r = run(b.build(), 0, TestPlatform::kMemBase);
  EXPECT_EQ(r.error, reg::kErrDramRange);
  EXPECT_EQ(r.error_insn, load);
  EXPECT_THAT(tp_.accel(config_).error_detail(), HasSubstr("beyond the"));
  expect_recovers();
}

TEST_F(SystemcErrorsTest, DmaThatTheBusRejectsIsADramRangeErrorNamingTheResponse) {
  // The window starts 64 KiB before the end of memory: a LOAD 1 MiB into it reaches no target.
  const uint64_t offset = TestPlatform::kMemBytes - 0x10000;
  ProgramBuilder b(l_);
  const size_t load = b.load_1d(MemType::kWgt, 0, 0, 1);
  b.finish();
  b.at(load).dram_base = static_cast<int64_t>((1u << 20) / l_.elem_bytes(MemType::kWgt));
  const Program p = b.build();
  ASSERT_LE(p.dram.size(), 0x10000u);
  const RegisterRun r = run(p, offset, TestPlatform::kMemBase + offset);
  EXPECT_EQ(r.error, reg::kErrDramRange);
  EXPECT_THAT(tp_.accel(config_).error_detail(),
              AllOf(HasSubstr("DMA read"), HasSubstr("TLM_ADDRESS_ERROR_RESPONSE")));
  expect_recovers();
}

TEST_F(SystemcErrorsTest, EmptyProgramIsAnIllegalInstruction) {
  ProgramBuilder b(l_);
  b.finish();
  Program p = b.build();
  p.insn_count = 0;
  const RegisterRun r = run(p, 0, TestPlatform::kMemBase);
  EXPECT_EQ(r.error, reg::kErrIllegalInsn);
  EXPECT_THAT(tp_.accel(config_).error_detail(), HasSubstr("instruction count is 0"));
  expect_recovers();
}

}  // namespace
}  // namespace weft::test
