// The Verilator harness of weft_top: it drives any Verilated weft_top through its ports
// (top_model.h: a model built into the binary or one from an RTL plugin). Each clock cycle it
// (1) drives the AXI master's inputs from sim::AxiMemory: ARREADY when a read slot is free,
// the beat scheduled for this cycle on R, AWREADY/WREADY when a write slot is free, the write
// response due now on B; (2) evaluates the low phase and records the handshakes, per-instruction events and run
// state; (3) evaluates the rising edge. Register accesses go through the AXI4-Lite slave.
// A watchdog ends a run in which no unit makes progress for `idle_limit` cycles as a deadlock
// (docs/hardware.md §Watchdog), naming what each module waits for as the cycle model does.
#pragma once

#include <array>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <string>

#include "driver/rtl/core_stats.h"
#include "driver/rtl/rtl_engine.h"
#include "driver/rtl/top_model.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/insn.h"
#include "hardware/isa/registers.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"
#include "simulator/common/tokens.h"
#include "simulator/memory/axi_memory.h"

namespace weft::driver::rtl {

class Harness : public RtlEngine {
 public:
  Harness(const isa::Layout& l, const isa::Platform& p, std::unique_ptr<TopModel> model)
      : l_(l), p_(p), model_(std::move(model)), io_(model_->io()) {
    idle_inputs();
    *io_.ap_rst_n = 0;
    for (int i = 0; i < 4; ++i) tick();
    *io_.ap_rst_n = 1;
    tick();
  }
  ~Harness() override { close_wave(); }

  RtlRunResult run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t count,
                   const RtlRunOptions& o) override {
    const std::vector<isa::Insn> program = sim::fetch_program(l_, dram, insn_offset, count);
    dram_ = &dram;
    RtlRunResult r;
    r.start.assign(count, kNone);
    r.done.assign(count, kNone);
    std::vector<size_t> routed[3];
    for (size_t i = 0; i < program.size(); ++i)
      routed[static_cast<int>(isa::route(program[i]))].push_back(i);
    size_t started[3] = {0, 0, 0}, finished[3] = {0, 0, 0};
    size_t dispatched = 0;  // instructions fetch has handed to a command queue
    if (!o.wave_path.empty()) {
      if (!model_->trace_open(o.wave_path))
        throw UserError("cannot write the waveform '" + o.wave_path + "'");
      wave_ = true;
    }
    mem_ = std::make_unique<sim::AxiMemory>(p_);
    mem_->set_faults(o.faults);
    insn_offset_ = insn_offset;
    for (int m = 0; m < 3; ++m) {
      current_[m] = -1;
      next_[m] = routed[m].empty() ? -1 : static_cast<int64_t>(routed[m][0]);
    }
    // An exception from inside the run (an injected bus fault, a DMA beyond the image) leaves
    // the core mid-transaction: reset it, as after a hang, so that the next run starts clean.
    struct ResetOnThrow {
      Harness* h;
      const int pending = std::uncaught_exceptions();
      ~ResetOnThrow() {
        if (std::uncaught_exceptions() > pending) {
          h->reset_after_hang();
          h->close_wave();
        }
      }
    } reset_on_throw{this};
    beats_.clear();
    resps_.clear();
    in_burst_ = false;
    const uint64_t model_start = cycle_;

    write_reg(isa::reg::kInsnCount, static_cast<uint32_t>(count));
    write_reg(isa::reg::kInsnCount + 4, static_cast<uint32_t>(count >> 32));
    write_reg(isa::reg::kInsnAddr, static_cast<uint32_t>(insn_offset));
    write_reg(isa::reg::kInsnAddr + 4, static_cast<uint32_t>(insn_offset >> 32));
    write_reg(isa::reg::kDramBase, 0);
    write_reg(isa::reg::kDramBase + 4, 0);
    // ap_start: its write response is taken inside the run loop, so that cycle 0 of the run
    // (the cycle after the write is accepted) is already served by the memory.
    write_reg(isa::reg::kControl, isa::reg::kApStart, /*wait_response=*/false);

    // Run until the core leaves its running state.
    bool seen_run = false;
    uint64_t t0 = 0, quiet = 0;
    while (true) {
      drive_memory();
      *io_.ap_clk = 0;
      model_->eval();
      dump();
      const bool active = serve_memory();
      const bool running = *io_.dbg_run_o;
      if (running && !seen_run) {
        seen_run = true;
        t0 = cycle_;
      }
      if (seen_run && !running) {
        *io_.ap_clk = 1;
        model_->eval();
        dump();
        ++cycle_;
        break;
      }
      if (running) {
        const uint64_t t = cycle_ - t0;
        const uint32_t st = *io_.dbg_start_o, dn = *io_.dbg_done_o;
        for (int m = 0; m < 3; ++m) {
          if ((st >> m) & 1) {
            if (started[m] < routed[m].size()) {
              current_[m] = static_cast<int64_t>(routed[m][started[m]]);
              r.start[routed[m][started[m]++]] = t;
              next_[m] = started[m] < routed[m].size() ? static_cast<int64_t>(routed[m][started[m]])
                                                       : -1;
            }
          }
        }
        int ndone[3] = {static_cast<int>(dn & 1), static_cast<int>(dn >> 2),
                        static_cast<int>((dn >> 1) & 1)};  // load, compute, store
        for (int m = 0; m < 3; ++m) {
          for (int k = 0; k < ndone[m]; ++k) {
            if (finished[m] < routed[m].size()) r.done[routed[m][finished[m]++]] = t;
          }
        }
        // Progress: memory traffic (or a burst in flight), an instruction starting or
        // completing, fetch dispatching, or a unit executing an instruction (a GEMM/ALU issuing
        // micro-ops moves no data through memory for as long as its loops run).
        const uint32_t cat = *io_.dbg_cat_o, fetch = *io_.dbg_fetch_o;
        if (fetch & kFetchDispatch) ++dispatched;
        const bool progress = active || st != 0 || dn != 0 || busy() ||
                              (fetch & kFetchDispatch) != 0 || unit_busy(cat);
        quiet = progress ? 0 : quiet + 1;
        if (quiet > o.idle_limit) {
          r.error = isa::reg::kErrDeadlock;
          r.model_cycles = cycle_ - model_start;
          r.error_detail =
              deadlock_message(program, routed, started, dispatched, t + 1 - quiet, o.idle_limit);
          reset_after_hang();
          close_wave();
          return r;
        }
        if ((t & 0xFFFF) == 0) {
          if (o.progress) o.progress(t, finished[0] + finished[1] + finished[2], count);
          if (o.cancel && o.cancel->load(std::memory_order_relaxed)) {
            reset_after_hang();
            close_wave();
            throw sim::RunCancelled();
          }
        }
      }
      *io_.ap_clk = 1;
      model_->eval();
      dump();
      ++cycle_;
    }
    *io_.s_axi_control_bready = 0;

    // The register protocol: ap_done, then the counters and the error register.
    const uint32_t ctrl = read_reg(isa::reg::kControl);
    if ((ctrl & isa::reg::kApDone) == 0) throw InternalError("rtl: ap_done not set after the run");
    if ((read_reg(isa::reg::kControl) & isa::reg::kApDone) != 0)
      throw InternalError("rtl: ap_done did not clear on read");
    r.error = read_reg(isa::reg::kError);
    r.error_insn = read_reg(isa::reg::kErrorInsn);
    r.reg_cycles = read64(isa::reg::kCycles);
    const uint32_t busy_regs[3] = {isa::reg::kLoadBusy, isa::reg::kComputeBusy,
                                   isa::reg::kStoreBusy};
    const uint32_t stall_regs[3] = {isa::reg::kLoadStall, isa::reg::kComputeStall,
                                    isa::reg::kStoreStall};
    for (int m = 0; m < 3; ++m) {
      r.reg_busy[m] = read64(busy_regs[m]);
      r.reg_stall[m] = read64(stall_regs[m]);
    }
    close_wave();

    sim::cycle::CycleStats& s = r.stats;
    s.cycles = r.reg_cycles;
    {
      uint32_t words[52];
      for (int i = 0; i < 52; ++i) words[i] = io_.dbg_stats_o[i];
      stats_from_dbg(words, s);
    }
    s.read_bursts = mem_->read_bursts();
    s.read_beats = mem_->read_beats();
    s.write_bursts = mem_->write_bursts();
    s.write_beats = mem_->write_beats();
    count_program(l_, program, s);
    r.model_cycles = cycle_ - model_start;
    return r;
  }

 private:
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  static constexpr int kBus = 16;
  // dbg_cat_o: one category per unit (load, compute, store), 3 bits each: the values of
  // weft_rtl_pkg::cat_e.
  enum Category : uint32_t { kBusy, kToken, kDram, kNoCmd, kHazard, kDrain };
  // dbg_fetch_o bits.
  static constexpr uint32_t kFetchDispatch = 1, kFetchBlocked = 2;

  static uint32_t category(uint32_t cat, int m) { return (cat >> (3 * m)) & 7u; }
  static const char* stuck_reason(uint32_t c) {
    switch (c) {
      case kBusy:
        return "executing it";
      case kDram:
        return "waiting for DRAM";
      case kHazard:
        return "waiting on an accumulator hazard";
      case kDrain:
        return "waiting for its writes to land";
      default:
        return "in an unknown state";
    }
  }
  static bool unit_busy(uint32_t cat) {
    for (int m = 0; m < 3; ++m) {
      if (category(cat, m) == kBusy) return true;
    }
    return false;
  }

  bool busy() const { return !beats_.empty() || !resps_.empty(); }

  void idle_inputs() {
    *io_.ap_clk = 0;
    *io_.s_axi_control_awvalid = 0;
    *io_.s_axi_control_wvalid = 0;
    *io_.s_axi_control_bready = 0;
    *io_.s_axi_control_arvalid = 0;
    *io_.s_axi_control_rready = 0;
    *io_.s_axi_control_wstrb = 0xF;
    *io_.m_axi_gmem_arready = 0;
    *io_.m_axi_gmem_rvalid = 0;
    *io_.m_axi_gmem_rlast = 0;
    *io_.m_axi_gmem_rresp = 0;
    *io_.m_axi_gmem_rid = 0;
    *io_.m_axi_gmem_awready = 0;
    *io_.m_axi_gmem_wready = 0;
    *io_.m_axi_gmem_bvalid = 0;
    *io_.m_axi_gmem_bresp = 0;
  }

  void dump() {
    if (wave_) model_->trace_dump(static_cast<uint64_t>(cycle_) * 2 + *io_.ap_clk);
  }

  void tick() {
    *io_.ap_clk = 0;
    model_->eval();
    dump();
    *io_.ap_clk = 1;
    model_->eval();
    dump();
    ++cycle_;
  }

  void close_wave() {
    if (wave_) {
      model_->trace_close();
      wave_ = false;
    }
  }

  // One clock cycle; `sample` reads outputs after the low phase. Returns what it returned.
  template <class F>
  bool half_cycles(F sample) {
    *io_.ap_clk = 0;
    model_->eval();
    dump();
    const bool r = sample();
    *io_.ap_clk = 1;
    model_->eval();
    dump();
    ++cycle_;
    return r;
  }

  // ---- AXI4-Lite ----
  void write_reg(uint32_t addr, uint32_t v, bool wait_response = true) {
    *io_.s_axi_control_awvalid = 1;
    *io_.s_axi_control_awaddr = addr;
    *io_.s_axi_control_wvalid = 1;
    *io_.s_axi_control_wdata = v;
    for (int i = 0;; ++i) {
      const bool ok = half_cycles([&] { return *io_.s_axi_control_awready; });
      if (ok) break;
      if (i > 16) throw InternalError("rtl: AXI4-Lite write not accepted");
    }
    *io_.s_axi_control_awvalid = 0;
    *io_.s_axi_control_wvalid = 0;
    *io_.s_axi_control_bready = 1;
    if (!wait_response) return;
    for (int i = 0;; ++i) {
      const bool ok = half_cycles([&] { return *io_.s_axi_control_bvalid; });
      if (ok) break;
      if (i > 16) throw InternalError("rtl: AXI4-Lite write response missing");
    }
    *io_.s_axi_control_bready = 0;
  }

  uint32_t read_reg(uint32_t addr) {
    *io_.s_axi_control_arvalid = 1;
    *io_.s_axi_control_araddr = addr;
    for (int i = 0;; ++i) {
      const bool ok = half_cycles([&] { return *io_.s_axi_control_arready; });
      if (ok) break;
      if (i > 16) throw InternalError("rtl: AXI4-Lite read not accepted");
    }
    *io_.s_axi_control_arvalid = 0;
    *io_.s_axi_control_rready = 1;
    uint32_t v = 0;
    for (int i = 0;; ++i) {
      const bool ok = half_cycles([&] {
        v = *io_.s_axi_control_rdata;
        return *io_.s_axi_control_rvalid;
      });
      if (ok) break;
      if (i > 16) throw InternalError("rtl: AXI4-Lite read data missing");
    }
    *io_.s_axi_control_rready = 0;
    return v;
  }

  uint64_t read64(uint32_t addr) {
    const uint64_t lo = read_reg(addr);
    return lo | (static_cast<uint64_t>(read_reg(addr + 4)) << 32);
  }

  // ---- AXI4 master, served from the DRAM image with sim::AxiMemory timing ----
  struct Beat {
    uint64_t cycle, addr;
    int id;
    bool last;
  };

  void drive_memory() {
    const uint64_t t = cycle_;
    *io_.m_axi_gmem_arready = mem_->next_read_slot(t) == t;
    const bool wslot = mem_->next_write_slot(t) == t;
    *io_.m_axi_gmem_awready = wslot;
    *io_.m_axi_gmem_wready = in_burst_ ? 1 : wslot;
    *io_.m_axi_gmem_rvalid = 0;
    if (!beats_.empty() && beats_.front().cycle == t) {
      const Beat& b = beats_.front();
      *io_.m_axi_gmem_rvalid = 1;
      *io_.m_axi_gmem_rid = b.id;
      *io_.m_axi_gmem_rlast = b.last;
      uint8_t bytes[kBus] = {};
      if (b.addr + kBus <= dram_->size()) std::memcpy(bytes, dram_->data() + b.addr, kBus);
      for (int w = 0; w < kBus / 4; ++w) {
        uint32_t v;
        std::memcpy(&v, bytes + 4 * w, 4);
        io_.m_axi_gmem_rdata[w] = v;
      }
    }
    *io_.m_axi_gmem_bvalid = !resps_.empty() && resps_.front() == t;
  }

  // Records this cycle's handshakes (outputs of the low-phase evaluation); returns whether any
  // memory traffic happened.
  bool serve_memory() {
    const uint64_t t = cycle_;
    bool active = false;
    if (*io_.m_axi_gmem_rvalid) {
      beats_.pop_front();
      active = true;
    }
    if (*io_.m_axi_gmem_bvalid) {
      resps_.pop_front();
      active = true;
    }
    if (*io_.m_axi_gmem_arvalid && *io_.m_axi_gmem_arready) {
      const uint32_t n = static_cast<uint32_t>(*io_.m_axi_gmem_arlen) + 1;
      const uint64_t addr = *io_.m_axi_gmem_araddr;
      const int id = static_cast<int>(*io_.m_axi_gmem_arid);  // RID_FETCH 0, LOAD 1, COMPUTE 2
      const sim::BurstSource src =
          id == 0 ? sim::BurstSource{"fetch", static_cast<int64_t>((addr - insn_offset_) / 16), addr}
                  : sim::BurstSource{id == 1 ? "load" : "compute", insn_of(id == 1 ? 0 : 1), addr};
      const uint64_t first = mem_->accept_read(t, n, src);
      if (addr + uint64_t{n} * kBus > dram_->size()) {
        throw sim::ProgramError(isa::reg::kErrDramRange, sim::ProgramError::kNoInsn,
                                "rtl: read burst at " + std::to_string(addr) +
                                    " beyond the DRAM image");
      }
      for (uint32_t k = 0; k < n; ++k)
        beats_.push_back({first + k, addr + uint64_t{k} * kBus,
                          static_cast<int>(*io_.m_axi_gmem_arid), k + 1 == n});
      active = true;
    }
    if (*io_.m_axi_gmem_awvalid && *io_.m_axi_gmem_awready) {
      const uint32_t n = static_cast<uint32_t>(*io_.m_axi_gmem_awlen) + 1;
      resps_.push_back(mem_->accept_write(t, n, {"store", insn_of(2), *io_.m_axi_gmem_awaddr}));
      w_addr_ = *io_.m_axi_gmem_awaddr;
      in_burst_ = true;
      active = true;
    }
    if (*io_.m_axi_gmem_wvalid && *io_.m_axi_gmem_wready) {
      const uint32_t strb = *io_.m_axi_gmem_wstrb;
      if (w_addr_ + kBus > dram_->size()) {
        throw sim::ProgramError(isa::reg::kErrDramRange, sim::ProgramError::kNoInsn,
                                "rtl: write beat at " + std::to_string(w_addr_) +
                                    " beyond the DRAM image");
      }
      for (int b = 0; b < kBus; ++b) {
        if ((strb >> b) & 1)
          (*dram_)[w_addr_ + b] =
              static_cast<uint8_t>(io_.m_axi_gmem_wdata[b / 4] >> (8 * (b % 4)));
      }
      w_addr_ += kBus;
      if (*io_.m_axi_gmem_wlast) in_burst_ = false;
      active = true;
    }
    return active;
  }

  // After a hang the core is reset (the on-chip buffers keep their contents).
  void reset_after_hang() {
    idle_inputs();
    *io_.ap_rst_n = 0;
    for (int i = 0; i < 4; ++i) tick();
    *io_.ap_rst_n = 1;
    tick();
  }

  // What each module waits for when the watchdog fires, in the cycle model's words (the
  // clauses of sim::ProgramError's deadlock messages), from the RTL's own view of this cycle:
  // each unit's accounting category, the token queues that hold a token and fetch's state.
  // A module at an instruction it has not started waits for a token (its command is there) or
  // for fetch (it is not); a module with nothing left to run is not named.
  std::string deadlock_message(const std::vector<isa::Insn>& program,
                               const std::vector<size_t> routed[3], const size_t started[3],
                               size_t dispatched, uint64_t since, uint64_t window) const {
    std::string msg = "deadlock at cycle " + std::to_string(since) +
                      ": no unit has made progress since (the watchdog waited " +
                      std::to_string(window) + " cycles) and FINISH has not run;";
    const uint32_t cat = *io_.dbg_cat_o, tok = *io_.dbg_tok_o;
    std::array<int64_t, isa::kNumTokenQueues> tokens{};
    for (int q = 0; q < isa::kNumTokenQueues; ++q) tokens[q] = (tok >> q) & 1;
    for (int m = 0; m < 3; ++m) {
      const auto mod = static_cast<isa::Module>(m);
      const bool left = started[m] < routed[m].size();
      const uint32_t c = category(cat, m);
      if (c == kToken && left) {
        const size_t i = routed[m][started[m]];
        const int q = sim::blocking_queue(program[i], mod, tokens);
        msg += " " +
               sim::deadlock_token_wait(mod, i, program[i],
                                        static_cast<isa::TokenQueue>(q < 0 ? 0 : q)) +
               ";";
      } else if (c == kNoCmd && left) {
        const size_t i = routed[m][started[m]];
        msg += " " + sim::deadlock_fetch_wait(mod, i, program[i]) + ";";
      } else if (c != kToken && c != kNoCmd) {
        // A unit that stays busy or stalled on DRAM, a hazard or the drain for a whole window:
        // the RTL itself is stuck (a correct RTL cannot get here).
        const size_t at = (c == kDrain || started[m] == 0) ? started[m] : started[m] - 1;
        if (at < routed[m].size()) {
          const size_t i = routed[m][at];
          msg += std::string(" the ") + isa::module_name(mod) + " module is stuck at " +
                 sim::describe(i, program[i]) + ", " + stuck_reason(c) + ";";
        }
      }
    }
    if ((*io_.dbg_fetch_o & kFetchBlocked) && dispatched < program.size())
      msg += " " + sim::deadlock_dispatch_blocked(dispatched, program[dispatched]) + ";";
    msg.pop_back();
    return msg;
  }

  const isa::Layout& l_;
  isa::Platform p_;
  std::unique_ptr<TopModel> model_;
  const weft_rtl_abi::TopPorts& io_;
  bool wave_ = false;
  std::unique_ptr<sim::AxiMemory> mem_;
  std::vector<uint8_t>* dram_ = nullptr;
  std::deque<Beat> beats_;
  std::deque<uint64_t> resps_;
  bool in_burst_ = false;
  uint64_t w_addr_ = 0;
  uint64_t insn_offset_ = 0;
  // For fault messages: the instruction each module started last and the one it starts next.
  int64_t current_[3] = {-1, -1, -1}, next_[3] = {-1, -1, -1};
  // The instruction module m runs this cycle (one starting now counts: its DMA may begin at once).
  int64_t insn_of(int m) const { return (*io_.dbg_start_o >> m) & 1 ? next_[m] : current_[m]; }
  uint64_t cycle_ = 0;
};

}  // namespace weft::driver::rtl
