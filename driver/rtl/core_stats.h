// What both Verilator harnesses (rtl_harness.h: weft_top; kernel_harness.h: the Vitis kernel
// top weft_kernel) read back from the core after a run: the accounting of weft_top's
// dbg_stats_o (26 64-bit words, weft_unit_stats.sv), and the VTA counters, which follow from
// the program itself (they are what it asks the hardware to do).
#pragma once

#include <cstdint>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "simulator/cycle/cycle_stats.h"

namespace weft::driver::rtl {

/// Fills the per-module and fetch accounting of `s` from dbg_stats_o as 32-bit words
/// (word 2i low, 2i+1 high of 64-bit statistic i).
inline void stats_from_dbg(const uint32_t* words, sim::cycle::CycleStats& s) {
  auto stat = [&](int i) {
    return static_cast<uint64_t>(words[2 * i]) | (static_cast<uint64_t>(words[2 * i + 1]) << 32);
  };
  sim::cycle::ModuleCycles* mods[3] = {&s.load, &s.compute, &s.store};
  for (int m = 0; m < 3; ++m) {
    sim::cycle::ModuleCycles& mc = *mods[m];
    mc.busy = stat(m * 8 + 0);
    mc.idle = stat(m * 8 + 2);
    mc.stall_token = stat(m * 8 + 3);
    mc.stall_dram = stat(m * 8 + 4);
    mc.stall_cmd_empty = stat(m * 8 + 5);
    mc.stall_hazard = stat(m * 8 + 6);
    mc.stall_drain = stat(m * 8 + 7);
  }
  const uint64_t f0 = stat(24), f1 = stat(25);
  s.fetch.busy = f0 & 0xFFFFFFFFu;
  s.fetch.stall_cmd_full = f0 >> 32;
  s.fetch.stall_dram = f1 & 0xFFFFFFFFu;
  s.fetch.idle = f1 >> 32;
}

/// The VTA counters, micro-op counts and activity (simulator/common/activity.h) of `program`
/// into `s`.
inline void count_program(const isa::Layout& l, const std::vector<isa::Insn>& program,
                          sim::cycle::CycleStats& s) {
  s.counters.insn_count = program.size();
  s.insn_fetch_nbytes = program.size() * 16;
  for (const isa::Insn& in : program) {
    s.activity.add(l, in);
    if (in.op() == isa::Opcode::kLoad && in.x_size > 0) {
      const uint64_t bytes = static_cast<uint64_t>(in.y_size * in.x_size * l.elem_bytes(in.mem()));
      switch (in.mem()) {
        case isa::MemType::kInp: s.counters.inp_load_nbytes += bytes; break;
        case isa::MemType::kWgt: s.counters.wgt_load_nbytes += bytes; break;
        case isa::MemType::kUop: s.counters.uop_load_nbytes += bytes; break;
        default: s.counters.acc_load_nbytes += bytes; break;
      }
    } else if (in.op() == isa::Opcode::kStore && in.x_size > 0) {
      s.counters.out_store_nbytes += static_cast<uint64_t>(in.y_size * in.x_size * l.out_elem_bytes);
    } else if (in.op() == isa::Opcode::kGemm || in.op() == isa::Opcode::kAlu) {
      const int64_t k = in.uop_end > in.uop_bgn ? in.uop_end - in.uop_bgn : 0;
      const uint64_t it = static_cast<uint64_t>(in.iter_out * in.iter_in * k);
      if (in.op() == isa::Opcode::kGemm) {
        s.gemm_uops += it;
        if (!in.reset_reg) s.counters.gemm_counter += it;
      } else {
        s.alu_uops += it;
        s.counters.alu_counter += it;
      }
    }
  }
}

}  // namespace weft::driver::rtl
