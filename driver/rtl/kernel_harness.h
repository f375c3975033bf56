// The Verilator harness of the kernel top weft_kernel (kernel_top.h), templated on the
// Verilated model class; kernel_model.cc instantiates it per configuration. Each clock cycle,
// register accesses included, it (1) drives m_axi_gmem's inputs from sim::AxiMemory exactly as
// rtl_harness.h drives weft_top's (ARREADY on a free read slot, the beat due now on R,
// AWREADY/WREADY on a free write slot, the response due now on B), with RRESP/BRESP from the
// fault plan; (2) evaluates the low phase and records the handshakes; (3) evaluates the rising
// edge. The core's accounting is read through a simulation probe (kernel_probe.vlt makes
// weft_kernel's `run` and the unconnected dbg_stats_o of weft_top readable), never through a
// port: the kernel top keeps only its bus interfaces.
#pragma once

#include <verilated.h>

#include <cstring>
#include <deque>
#include <memory>

#include "driver/rtl/core_stats.h"
#include "driver/rtl/kernel_top.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "simulator/memory/axi_memory.h"

namespace weft::driver::rtl {

template <class Model>
class KernelHarness : public KernelTop {
 public:
  explicit KernelHarness(const isa::Platform& p)
      : p_(p), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->commandArgs(0, static_cast<const char**>(nullptr));
    top_ = std::make_unique<Model>(ctx_.get(), "kernel");
    mem_ = std::make_unique<sim::AxiMemory>(p_);
    reset();
  }
  ~KernelHarness() override {
    // The probe's public scopes unregister from the thread's current context: make it ours
    // (another model on this thread may have set its own, since destroyed).
    Verilated::threadContextp(ctx_.get());
    top_->final();
    top_.reset();
  }

  void attach(std::vector<uint8_t>* memory, const sim::FaultPlan* faults) override {
    memory_ = memory;
    faults_ = faults && !faults->empty() ? faults : nullptr;
    mem_ = std::make_unique<sim::AxiMemory>(p_);
    beats_.clear();
    resps_.clear();
    in_burst_ = false;
    reads_ = writes_ = 0;
    snap_ = {};
  }

  void write_reg(uint32_t addr, uint32_t v) override {
    top_->s_axi_control_awvalid = 1;
    top_->s_axi_control_awaddr = addr;
    top_->s_axi_control_wvalid = 1;
    top_->s_axi_control_wdata = v;
    top_->s_axi_control_wstrb = 0xF;
    handshake([&] { return top_->s_axi_control_awready != 0; }, "write address");
    if (addr == isa::reg::kControl && (v & isa::reg::kApStart)) start_cycle_ = cycle_;
    top_->s_axi_control_awvalid = 0;
    top_->s_axi_control_wvalid = 0;
    top_->s_axi_control_bready = 1;
    handshake([&] { return top_->s_axi_control_bvalid != 0; }, "write response");
    top_->s_axi_control_bready = 0;
  }

  uint32_t read_reg(uint32_t addr) override {
    top_->s_axi_control_arvalid = 1;
    top_->s_axi_control_araddr = addr;
    handshake([&] { return top_->s_axi_control_arready != 0; }, "read address");
    top_->s_axi_control_arvalid = 0;
    top_->s_axi_control_rready = 1;
    uint32_t v = 0;
    handshake([&] {
      v = top_->s_axi_control_rdata;
      return top_->s_axi_control_rvalid != 0;
    }, "read data");
    top_->s_axi_control_rready = 0;
    return v;
  }

  bool run_until_interrupt(const std::atomic<bool>* cancel) override {
    for (uint64_t n = 0;; ++n) {
      if (top_->__SYM__interrupt) {
        end_cycle_ = cycle_;
        return true;
      }
      if ((n & 0xFFF) == 0 && cancel && cancel->load(std::memory_order_relaxed)) return false;
      tick([] { return true; });
    }
  }

  void reset() override {
    idle_inputs();
    top_->ap_rst_n = 0;
    for (int i = 0; i < 4; ++i) plain_tick();
    top_->ap_rst_n = 1;
    plain_tick();
    beats_.clear();
    resps_.clear();
    in_burst_ = false;
  }

  uint64_t kernel_cycles() const override { return end_cycle_ - start_cycle_; }

  sim::cycle::CycleStats core_stats() const override {
    sim::cycle::CycleStats s;
    uint32_t words[52];
    for (int i = 0; i < 52; ++i) words[i] = top_->rootp->weft_kernel__DOT__unused_stats[i];
    stats_from_dbg(words, s);
    s.read_bursts = snap_.rb;
    s.read_beats = snap_.rbeats;
    s.write_bursts = snap_.wb;
    s.write_beats = snap_.wbeats;
    return s;
  }

 private:
  static constexpr int kBus = 16;
  struct Beat {
    uint64_t cycle, addr;
    int id;
    bool last;
    uint8_t resp;
  };
  struct Resp {
    uint64_t cycle;
    uint8_t resp;
  };
  struct Snapshot {
    uint64_t rb = 0, rbeats = 0, wb = 0, wbeats = 0;
  };

  void idle_inputs() {
    top_->ap_clk = 0;
    top_->s_axi_control_awvalid = 0;
    top_->s_axi_control_wvalid = 0;
    top_->s_axi_control_bready = 0;
    top_->s_axi_control_arvalid = 0;
    top_->s_axi_control_rready = 0;
    top_->s_axi_control_wstrb = 0xF;
    top_->m_axi_gmem_arready = 0;
    top_->m_axi_gmem_rvalid = 0;
    top_->m_axi_gmem_rlast = 0;
    top_->m_axi_gmem_rresp = 0;
    top_->m_axi_gmem_rid = 0;
    top_->m_axi_gmem_awready = 0;
    top_->m_axi_gmem_wready = 0;
    top_->m_axi_gmem_bvalid = 0;
    top_->m_axi_gmem_bresp = 0;
    top_->m_axi_gmem_bid = 0;
  }

  void plain_tick() {
    top_->ap_clk = 0;
    top_->eval();
    top_->ap_clk = 1;
    top_->eval();
    ++cycle_;
  }

  // One clock with the memory served; `sample` reads outputs after the low phase.
  template <class F>
  bool tick(F sample) {
    if (memory_ != nullptr) drive_memory();
    top_->ap_clk = 0;
    top_->eval();
    const bool r = sample();
    if (memory_ != nullptr) serve_memory();
    const bool run = top_->rootp->weft_kernel__DOT__run;
    if (run_ && !run) snap_ = {mem_->read_bursts(), mem_->read_beats(), mem_->write_bursts(),
                               mem_->write_beats()};
    run_ = run;
    top_->ap_clk = 1;
    top_->eval();
    ++cycle_;
    return r;
  }

  template <class F>
  void handshake(F ready, const char* what) {
    for (int i = 0; i < 64; ++i) {
      if (tick(ready)) return;
    }
    throw InternalError(std::string("kernel top: AXI4-Lite ") + what + " never completed");
  }

  // The fault plan's answer to the index-th burst on `ch` covering [addr, addr+bytes): 0 OKAY,
  // 2 SLVERR, 3 DECERR, 0xFF no answer.
  uint8_t fault(sim::AxiChannel ch, uint64_t index, uint64_t addr, uint64_t bytes) const {
    if (faults_ == nullptr) return 0;
    for (const sim::AxiFault& f : faults_->faults) {
      if (f.channel != ch) continue;
      if (f.burst >= 0 && static_cast<uint64_t>(f.burst) != index) continue;
      if (addr >= f.addr_hi || addr + bytes <= f.addr_lo) continue;
      switch (f.kind) {
        case sim::AxiFaultKind::kSlvErr: return 2;
        case sim::AxiFaultKind::kDecErr: return 3;
        default: return 0xFF;
      }
    }
    return 0;
  }

  void drive_memory() {
    const uint64_t t = cycle_;
    top_->m_axi_gmem_arready = mem_->next_read_slot(t) == t;
    const bool wslot = mem_->next_write_slot(t) == t;
    top_->m_axi_gmem_awready = wslot;
    top_->m_axi_gmem_wready = in_burst_ ? 1 : wslot;
    top_->m_axi_gmem_rvalid = 0;
    top_->m_axi_gmem_rresp = 0;
    if (!beats_.empty() && beats_.front().cycle == t) {
      const Beat& b = beats_.front();
      top_->m_axi_gmem_rvalid = 1;
      top_->m_axi_gmem_rid = b.id;
      top_->m_axi_gmem_rlast = b.last;
      top_->m_axi_gmem_rresp = b.resp;
      uint8_t bytes[kBus] = {};
      if (b.resp == 0) std::memcpy(bytes, memory_->data() + b.addr, kBus);
      for (int w = 0; w < kBus / 4; ++w) {
        uint32_t v;
        std::memcpy(&v, bytes + 4 * w, 4);
        top_->m_axi_gmem_rdata[w] = v;
      }
    }
    top_->m_axi_gmem_bvalid = !resps_.empty() && resps_.front().cycle == t;
    top_->m_axi_gmem_bresp = top_->m_axi_gmem_bvalid ? resps_.front().resp : 0;
    top_->m_axi_gmem_bid = 0;
  }

  void serve_memory() {
    const uint64_t t = cycle_;
    if (top_->m_axi_gmem_rvalid) beats_.pop_front();
    if (top_->m_axi_gmem_bvalid) resps_.pop_front();
    if (top_->m_axi_gmem_arvalid && top_->m_axi_gmem_arready) {
      const uint32_t n = static_cast<uint32_t>(top_->m_axi_gmem_arlen) + 1;
      const uint64_t addr = top_->m_axi_gmem_araddr;
      const uint64_t first = mem_->accept_read(t, n);
      uint8_t resp = fault(sim::AxiChannel::kRead, reads_++, addr, uint64_t{n} * kBus);
      // an address beyond device memory: no slave answers it (DECERR), as on a board
      if (resp == 0 && (addr > memory_->size() || uint64_t{n} * kBus > memory_->size() - addr))
        resp = 3;
      if (resp != 0xFF) {
        for (uint32_t k = 0; k < n; ++k)
          beats_.push_back({first + k, addr + uint64_t{k} * kBus,
                            static_cast<int>(top_->m_axi_gmem_arid), k + 1 == n, resp});
      }
    }
    if (top_->m_axi_gmem_awvalid && top_->m_axi_gmem_awready) {
      const uint32_t n = static_cast<uint32_t>(top_->m_axi_gmem_awlen) + 1;
      const uint64_t addr = top_->m_axi_gmem_awaddr;
      const uint64_t due = mem_->accept_write(t, n);
      uint8_t resp = fault(sim::AxiChannel::kWrite, writes_++, addr, uint64_t{n} * kBus);
      if (resp == 0 && (addr > memory_->size() || uint64_t{n} * kBus > memory_->size() - addr))
        resp = 3;
      if (resp != 0xFF) resps_.push_back({due, resp});
      w_addr_ = addr;
      w_resp_ = resp;
      in_burst_ = true;
    }
    if (top_->m_axi_gmem_wvalid && top_->m_axi_gmem_wready) {
      const uint32_t strb = top_->m_axi_gmem_wstrb;
      if (w_resp_ == 0) {  // a burst answered with an error writes nothing
        for (int b = 0; b < kBus; ++b) {
          if ((strb >> b) & 1)
            (*memory_)[w_addr_ + b] =
                static_cast<uint8_t>(top_->m_axi_gmem_wdata[b / 4] >> (8 * (b % 4)));
        }
      }
      w_addr_ += kBus;
      if (top_->m_axi_gmem_wlast) in_burst_ = false;
    }
  }

  isa::Platform p_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> top_;
  std::unique_ptr<sim::AxiMemory> mem_;
  std::vector<uint8_t>* memory_ = nullptr;
  const sim::FaultPlan* faults_ = nullptr;
  std::deque<Beat> beats_;
  std::deque<Resp> resps_;
  bool in_burst_ = false, run_ = false;
  uint64_t w_addr_ = 0;
  uint8_t w_resp_ = 0;
  uint64_t reads_ = 0, writes_ = 0;
  Snapshot snap_;
  uint64_t cycle_ = 0, start_cycle_ = 0, end_cycle_ = 0;
};

}  // namespace weft::driver::rtl
