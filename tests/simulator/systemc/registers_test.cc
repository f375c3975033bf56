// The SystemC model's control registers over TLM: accesses the map cannot serve get the TLM
// error response that says why (address, burst, byte enable, command), never a crash or a
// silent change; the ap_ctrl_hs handshake and the interrupt behave as hardware/isa/registers.h
// and the RTL's weft_ctrl say (ap_start reads 1 while running, ap_done clears on read, the
// interrupt needs both enables and clears when 1 is written to the status register); while a
// run is in progress the arguments cannot change and the results read 0.
#include "hardware/isa/registers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "tests/simulator/systemc/test_platform.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

namespace reg = isa::reg;
using sc_core::sc_time;
using tlm::TLM_ADDRESS_ERROR_RESPONSE;
using tlm::TLM_BURST_ERROR_RESPONSE;
using tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
using tlm::TLM_COMMAND_ERROR_RESPONSE;
using tlm::TLM_OK_RESPONSE;

TEST(SystemcRegisters, BadAccessesGetTlmErrorResponsesAndChangeNothing) {
  TestPlatform& tp = TestPlatform::get();
  const uint64_t c = tp.control("gemm8x8");
  tp.run_host([&] {
    Host& h = tp.host();
    h.write32(c + reg::kInsnCount, 1234);
    uint8_t buf[16] = {};
    auto rd = [&](uint64_t addr, unsigned len, unsigned sw = 0,
                  const std::vector<uint8_t>* be = nullptr) {
      return h.transport(tlm::TLM_READ_COMMAND, addr, buf, len, sw, be);
    };
    auto wr = [&](uint64_t addr, unsigned len, unsigned sw = 0,
                  const std::vector<uint8_t>* be = nullptr) {
      return h.transport(tlm::TLM_WRITE_COMMAND, addr, buf, len, sw, be);
    };
    // Addresses: past the map, inside the router's window; not word aligned.
    EXPECT_EQ(rd(c + reg::kMapEnd, 4), TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(wr(c + 0x800, 4), TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(rd(c + reg::kInsnCount + 2, 4), TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(wr(c + reg::kInsnCount + 1, 4), TLM_ADDRESS_ERROR_RESPONSE);
    // Widths: registers are 32 bits, one per transaction, no streaming.
    EXPECT_EQ(rd(c + reg::kInsnCount, 8), TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(wr(c + reg::kInsnCount, 8), TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(rd(c + reg::kInsnCount, 2), TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(wr(c + reg::kInsnCount, 1), TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(wr(c + reg::kInsnCount, 4, 2), TLM_BURST_ERROR_RESPONSE);
    // Byte enables: all or nothing.
    const std::vector<uint8_t> half = {0xFF, 0xFF, 0x00, 0x00}, all = {0xFF};
    EXPECT_EQ(wr(c + reg::kInsnCount, 4, 0, &half), TLM_BYTE_ENABLE_ERROR_RESPONSE);
    EXPECT_EQ(rd(c + reg::kInsnCount, 4, 0, &all), TLM_OK_RESPONSE);
    // Commands: the counters and the error register are read-only.
    for (uint32_t off = reg::kCycles; off < reg::kMapEnd; off += 4) {
      EXPECT_EQ(h.try_write32(c + off, 7), TLM_COMMAND_ERROR_RESPONSE) << "offset " << off;
    }
    EXPECT_EQ(h.transport(tlm::TLM_IGNORE_COMMAND, c + reg::kInsnCount, buf, 4), TLM_OK_RESPONSE);
    // None of it changed a register.
    EXPECT_EQ(h.read32(c + reg::kInsnCount), 1234u);
    EXPECT_EQ(h.read32(c + reg::kInsnCount + 4), 0u);
    EXPECT_EQ(h.read32(c + reg::kCycles), 0u);
    EXPECT_EQ(h.read32(c + reg::kError), 0u);
  });
}

TEST(SystemcRegisters, DebugReadsSeeTheMapWithoutSideEffects) {
  TestPlatform& tp = TestPlatform::get();
  const uint64_t c = tp.control("tiny");
  tp.run_host([&] {
    Host& h = tp.host();
    h.write32(c + reg::kInsnAddr, 0xABCD);
    tlm::tlm_generic_payload t;
    std::vector<uint32_t> regs(reg::kMapEnd / 4, 0xFFFFFFFFu);
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(c);
    t.set_data_ptr(reinterpret_cast<uint8_t*>(regs.data()));
    t.set_data_length(reg::kMapEnd);
    EXPECT_EQ(h.socket->transport_dbg(t), reg::kMapEnd);
    EXPECT_EQ(regs[reg::kInsnAddr / 4], 0xABCDu);
    EXPECT_EQ(regs[reg::kControl / 4] & reg::kApIdle, reg::kApIdle);
    t.set_command(tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(h.socket->transport_dbg(t), 0u) << "no debug writes";
  });
}

TEST(SystemcRegisters, HandshakeInterruptEnablesAndWritesWhileRunning) {
  TestPlatform& tp = TestPlatform::get();
  const std::string config = "vta";
  const isa::Layout& l = isa::layout_for(config);
  sysc::Accelerator& acc = tp.accel(config);
  acc.set_timing(sysc::Timing::kTimed);
  const Program p = random_program(l, 3).program;
  tp.load(0, p.dram);
  const uint64_t c = tp.control(config);
  tp.run_host([&] {
    Host& h = tp.host();
    h.write32(c + reg::kGlobalIntEnable, 0);  // status without the line
    h.write32(c + reg::kIpIntEnable, 1);
    h.write32(c + reg::kIpIntStatus, 1);
    h.write32(c + reg::kInsnCount, static_cast<uint32_t>(p.insn_count));
    h.write32(c + reg::kInsnCount + 4, 0);
    h.write32(c + reg::kInsnAddr, static_cast<uint32_t>(p.insn_offset));
    h.write32(c + reg::kInsnAddr + 4, 0);
    h.write32(c + reg::kDramBase, static_cast<uint32_t>(TestPlatform::kMemBase));
    h.write32(c + reg::kDramBase + 4, static_cast<uint32_t>(TestPlatform::kMemBase >> 32));
    EXPECT_EQ(h.read32(c + reg::kControl), reg::kApIdle);
    h.write32(c + reg::kControl, reg::kApStart);

    // Running: ap_start reads 1, not idle; arguments and a second start are refused.
    sc_core::wait(acc.clock_period() * 3);
    ASSERT_TRUE(acc.busy()) << "the program is too short to observe a run";
    EXPECT_EQ(h.read32(c + reg::kControl), reg::kApStart);
    EXPECT_EQ(h.try_write32(c + reg::kInsnCount, 99), TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(h.try_write32(c + reg::kGlobalIntEnable, 1), TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(h.try_write32(c + reg::kControl, reg::kApStart), TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(h.read32(c + reg::kInsnCount), p.insn_count);
    EXPECT_EQ(h.read32(c + reg::kCycles), 0u) << "results read 0 until done";

    // Done with GIE off: the status is set, the line stays low until GIE is set.
    while (acc.busy()) sc_core::wait(acc.clock_period() * 100);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_FALSE(tp.irq_level(config));
    EXPECT_EQ(h.read32(c + reg::kIpIntStatus), 1u);
    EXPECT_GT(h.read32(c + reg::kCycles), 0u);
    h.write32(c + reg::kGlobalIntEnable, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(tp.irq_level(config));
    EXPECT_EQ(h.read32(c + reg::kControl), reg::kApDone | reg::kApIdle | reg::kApReady);
    EXPECT_EQ(h.read32(c + reg::kControl), reg::kApIdle);
    h.write32(c + reg::kIpIntStatus, 0);  // writing 0 leaves it
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(tp.irq_level(config));
    h.write32(c + reg::kIpIntStatus, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_FALSE(tp.irq_level(config));

    // IER off: a run leaves the status clear.
    h.write32(c + reg::kIpIntEnable, 0);
    h.write32(c + reg::kControl, reg::kApStart);
    while (acc.busy()) sc_core::wait(acc.clock_period() * 100);
    EXPECT_EQ(h.read32(c + reg::kIpIntStatus), 0u);
    EXPECT_EQ(h.read32(c + reg::kError), 0u);
    EXPECT_FALSE(tp.irq_level(config));
  });
}

}  // namespace
}  // namespace weft::test
