// The Vitis kernel top hardware/fpga/weft_kernel.sv, Verilated for `tiny` (label `rtl`), driven
// the way XRT drives an ap_ctrl_hs kernel: arguments over s_axi_control, GIE/IER, ap_start,
// then the interrupt, a read of 0x00 (ap_done, clear on read) and a write of 1 to the ISR. A
// small AXI4 slave serves m_axi_gmem from a memory image (in-order beats after a fixed
// latency) and can answer one burst with SLVERR. Checks: the results are the functional
// model's, the status buffer holds the counters and error register before the interrupt and
// ap_done, a bus error response lands in the error register, ap_start during a run is ignored.
// (Verilator renames the port `interrupt`, a C++ keyword in SystemC, to __SYM__interrupt.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>

#include "Vweft_kernel_tiny.h"
#include "driver/device.h"
#include "driver/launch.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

namespace reg = isa::reg;
constexpr uint64_t kArena = 0x10000, kStatus = 0x8000, kMemBytes = 4 << 20;

class KernelTb {
 public:
  KernelTb() : mem_(kMemBytes, 0), ctx_(std::make_unique<VerilatedContext>()) {
    top_ = std::make_unique<Vweft_kernel_tiny>(ctx_.get(), "k");
    top_->ap_rst_n = 0;
    for (int i = 0; i < 4; ++i) tick();
    top_->ap_rst_n = 1;
    tick();
  }
  ~KernelTb() { top_->final(); }

  std::vector<uint8_t> mem_;
  int error_burst = -1;  // answer this read burst (counting from 0) with SLVERR
  uint64_t cycle = 0;
  bool status_written_before_irq = false;

  // One clock: inputs from the memory, low phase, handshakes, rising edge.
  void tick() {
    top_->m_axi_gmem_arready = 1;
    top_->m_axi_gmem_awready = 1;
    top_->m_axi_gmem_wready = 1;
    top_->m_axi_gmem_rvalid = 0;
    if (!beats_.empty() && beats_.front().due <= cycle) {
      const Beat& b = beats_.front();
      top_->m_axi_gmem_rvalid = 1;
      top_->m_axi_gmem_rid = b.id;
      top_->m_axi_gmem_rlast = b.last;
      top_->m_axi_gmem_rresp = b.err ? 2 : 0;
      for (int w = 0; w < 4; ++w) std::memcpy(&top_->m_axi_gmem_rdata[w], &mem_[b.addr + 4 * w], 4);
    }
    top_->m_axi_gmem_bvalid = !bresp_.empty() && bresp_.front() <= cycle;
    top_->m_axi_gmem_bresp = 0;
    top_->m_axi_gmem_bid = 0;
    top_->ap_clk = 0;
    top_->eval();
    if (top_->m_axi_gmem_rvalid && top_->m_axi_gmem_rready) beats_.pop_front();
    if (top_->m_axi_gmem_bvalid && top_->m_axi_gmem_bready) bresp_.pop_front();
    if (top_->m_axi_gmem_arvalid) {
      const uint32_t n = top_->m_axi_gmem_arlen + 1u;
      const uint64_t a = top_->m_axi_gmem_araddr;
      EXPECT_EQ(a / 4096, (a + n * 16 - 1) / 4096) << "read burst crosses 4 KiB";
      const bool err = bursts_++ == error_burst;
      for (uint32_t k = 0; k < n; ++k)
        beats_.push_back({cycle + 8 + k, a + 16 * k, static_cast<int>(top_->m_axi_gmem_arid),
                          k + 1 == n, err});
    }
    if (top_->m_axi_gmem_awvalid) {
      waddr_ = top_->m_axi_gmem_awaddr;
      wleft_ = top_->m_axi_gmem_awlen + 1u;
      EXPECT_EQ(waddr_ / 4096, (waddr_ + wleft_ * 16 - 1) / 4096) << "write burst crosses 4 KiB";
    }
    if (top_->m_axi_gmem_wvalid) {
      EXPECT_GT(wleft_, 0u) << "W beat without a burst";
      for (int b = 0; b < 16; ++b) {
        if ((top_->m_axi_gmem_wstrb >> b) & 1)
          mem_[waddr_ + b] = static_cast<uint8_t>(top_->m_axi_gmem_wdata[b / 4] >> (8 * (b % 4)));
      }
      waddr_ += 16;
      --wleft_;
      EXPECT_EQ(top_->m_axi_gmem_wlast != 0, wleft_ == 0);
      if (top_->m_axi_gmem_wlast) bresp_.push_back(cycle + 5);
    }
    top_->ap_clk = 1;
    top_->eval();
    if (top_->__SYM__interrupt && !irq_seen_) {
      irq_seen_ = true;
      uint32_t pattern;
      std::memcpy(&pattern, &mem_[kStatus], 4);
      status_written_before_irq = pattern != 0xA5A5A5A5u;
      if (std::getenv("KTB_DEBUG")) fprintf(stderr, "irq at %llu pattern %x\n", (unsigned long long)cycle, pattern);
    }
    ++cycle;
  }

  void write(uint32_t addr, uint32_t v) {
    top_->s_axi_control_awvalid = 1;
    top_->s_axi_control_wvalid = 1;
    top_->s_axi_control_awaddr = addr;
    top_->s_axi_control_wdata = v;
    top_->s_axi_control_wstrb = 0xF;
    wait_for([&] { return top_->s_axi_control_awready != 0; });
    top_->s_axi_control_awvalid = 0;
    top_->s_axi_control_wvalid = 0;
    top_->s_axi_control_bready = 1;
    wait_for([&] { return top_->s_axi_control_bvalid != 0; });
    top_->s_axi_control_bready = 0;
  }
  uint32_t read(uint32_t addr) {
    top_->s_axi_control_arvalid = 1;
    top_->s_axi_control_araddr = addr;
    wait_for([&] { return top_->s_axi_control_arready != 0; });
    top_->s_axi_control_arvalid = 0;
    top_->s_axi_control_rready = 1;
    uint32_t v = 0;
    wait_for([&] {
      v = top_->s_axi_control_rdata;
      return top_->s_axi_control_rvalid != 0;
    });
    top_->s_axi_control_rready = 0;
    return v;
  }
  bool interrupt() const { return top_->__SYM__interrupt; }
  /// Forgets the last interrupt (before a new run).
  void arm() { irq_seen_ = false, status_written_before_irq = false; }

 private:
  template <class F>
  void wait_for(F ready) {
    for (int i = 0; i < 100; ++i) {
      top_->ap_clk = 0;
      top_->eval();
      const bool r = ready();
      tick();
      if (r) return;
    }
    FAIL() << "AXI4-Lite handshake never completed";
  }
  struct Beat {
    uint64_t due, addr;
    int id;
    bool last, err;
  };
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vweft_kernel_tiny> top_;
  std::deque<Beat> beats_;
  std::deque<uint64_t> bresp_;
  uint64_t waddr_ = 0;
  uint32_t wleft_ = 0;
  int bursts_ = 0;
  bool irq_seen_ = false;
};

// What XRT does for one run; returns the status buffer words.
std::vector<uint32_t> run_like_xrt(KernelTb& tb, const Program& p) {
  std::memcpy(tb.mem_.data() + kArena, p.dram.data(), p.dram.size());
  std::memset(tb.mem_.data() + kStatus, 0xA5, 64);
  tb.arm();
  EXPECT_EQ(tb.read(reg::kControl) & reg::kApIdle, reg::kApIdle);
  tb.write(reg::kInsnCount, static_cast<uint32_t>(p.insn_count));
  tb.write(reg::kInsnCount + 4, 0);
  tb.write(reg::kInsnAddr, static_cast<uint32_t>(p.insn_offset));
  tb.write(reg::kInsnAddr + 4, 0);
  tb.write(reg::kDramBase, static_cast<uint32_t>(kArena));
  tb.write(reg::kDramBase + 4, 0);
  tb.write(reg::kStatusAddr, static_cast<uint32_t>(kStatus));
  tb.write(reg::kStatusAddr + 4, 0);
  EXPECT_EQ(tb.read(reg::kStatusAddr), kStatus);
  tb.write(reg::kGlobalIntEnable, 1);
  tb.write(reg::kIpIntEnable, 1);
  tb.write(reg::kControl, reg::kApStart);
  EXPECT_EQ(tb.read(reg::kControl) & (reg::kApIdle | reg::kApDone), 0u) << "running";
  tb.write(reg::kInsnCount, 0);  // ignored while running
  for (uint64_t i = 0; i < 2000000 && !tb.interrupt(); ++i) tb.tick();
  EXPECT_TRUE(tb.interrupt()) << "no interrupt";
  EXPECT_TRUE(tb.status_written_before_irq) << "interrupt before the status was in memory";
  const uint32_t ctrl = tb.read(reg::kControl);
  EXPECT_EQ(ctrl & (reg::kApDone | reg::kApIdle | reg::kApReady),
            reg::kApDone | reg::kApIdle | reg::kApReady);
  EXPECT_EQ(tb.read(reg::kControl) & reg::kApDone, 0u) << "ap_done clears on read";
  EXPECT_EQ(tb.read(reg::kIpIntStatus), 1u);
  tb.write(reg::kIpIntStatus, 1);  // toggle-on-write clears the ISR
  tb.tick();
  EXPECT_FALSE(tb.interrupt());
  EXPECT_EQ(tb.read(reg::kIpIntStatus), 0u);
  std::vector<uint32_t> words(16);
  std::memcpy(words.data(), tb.mem_.data() + kStatus, 64);
  // the status buffer is the register image 0x28..0x67
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(words[i], tb.read(reg::kCycles + 4 * i)) << i;
  return words;
}

TEST(KernelTop, RunsLikeXrtDrivesItAndWritesTheStatusBeforeApDone) {
  const isa::Layout& l = isa::layout_for("tiny");
  KernelTb tb;
  for (uint64_t seed : {2, 11}) {
    SCOPED_TRACE(seed);
    const RandomProgram rp = random_program(l, seed);
    const std::vector<uint32_t> st = run_like_xrt(tb, rp.program);
    EXPECT_GT(st[0], 0u) << "cycles";
    EXPECT_EQ(st[(reg::kError - reg::kCycles) / 4], 0u) << "error register";
    // bit-exact with the functional model
    driver::DeviceOptions o;
    o.layout = &l;
    o.memory_bytes = 1 << 20;
    auto f = driver::open_device("functional", o);
    const uint64_t a = f->alloc(rp.program.dram.size());
    f->copy_to_device(a, rp.program.dram.data(), rp.program.dram.size());
    driver::run(*f, rp.program.insn_offset, rp.program.insn_count, std::chrono::seconds(30));
    std::vector<uint8_t> want(rp.program.dram.size());
    f->copy_from_device(a, want.data(), want.size());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), tb.mem_.begin() + kArena));
  }
}

TEST(KernelTop, ReadErrorResponseSetsTheBusErrorBit) {
  KernelTb tb;
  tb.error_burst = 1;
  const RandomProgram rp = random_program(isa::layout_for("tiny"), 4);
  const std::vector<uint32_t> st = run_like_xrt(tb, rp.program);
  EXPECT_EQ(st[(reg::kError - reg::kCycles) / 4] & reg::kErrBusResp, reg::kErrBusResp);
  EXPECT_EQ(tb.read(reg::kError) & reg::kErrBusResp, reg::kErrBusResp);
  // the next run starts clean
  tb.error_burst = -1;
  const std::vector<uint32_t> st2 = run_like_xrt(tb, rp.program);
  EXPECT_EQ(st2[(reg::kError - reg::kCycles) / 4], 0u);
}

}  // namespace
}  // namespace weft::test
