// Step 2 of a cycle-model cycle (cycle_run.h): in the order load, compute, store, a unit starts
// its next instruction when it is free, its command is visible, (compute) a LOAD or FINISH
// finds the GEMM/ALU pipeline drained, and its tokens are there; the pops happen now. Each
// opcode then runs on its part of the data path, which returns the cycle it completes.
#include "simulator/common/program.h"
#include "simulator/cycle/cycle_run.h"
#include "simulator/cycle/store_dma.h"

namespace weft::sim::cycle {

using isa::Insn;
using isa::Opcode;

void CycleRun::start_units() {
  for (Unit& u : units_) try_start(u);
}

void CycleRun::try_start(Unit& u) {
  if (u.executing(t_) || u.cmdq.empty()) return;
  if (waits_for_drain(u) || blocking_queue_of(u) >= 0) return;
  const size_t index = u.cmdq.front();
  const Insn& insn = program_[index];
  close_wait(u, t_);
  pop_tokens(u, insn, index);
  u.cmdq.pop_front();
  push_event(t_ + 1, Event::kCmdFreed, int(u.id), index);
  ++u.started;
  u.running_index = index;
  ++st_.counters.insn_count;
  st_.activity.add(l_, insn);
  switch (insn.op()) {
    case Opcode::kLoad:
      return start_load(u, insn, index);
    case Opcode::kGemm:
    case Opcode::kAlu:
      return start_gemm_alu(u, insn, index);
    case Opcode::kStore:
      return start_store(u, insn, index);
    case Opcode::kFinish:
      return start_finish(u, insn, index);
  }
}

void CycleRun::start_load(Unit& u, const Insn& insn, size_t index) {
  if (insn.x_size > 0) {
    const uint64_t bytes =
        static_cast<uint64_t>(insn.y_size * insn.x_size * l_.elem_bytes(insn.mem()));
    switch (insn.mem()) {
      case isa::MemType::kInp:
        st_.counters.inp_load_nbytes += bytes;
        break;
      case isa::MemType::kWgt:
        st_.counters.wgt_load_nbytes += bytes;
        break;
      case isa::MemType::kUop:
        st_.counters.uop_load_nbytes += bytes;
        break;
      default:
        st_.counters.acc_load_nbytes += bytes;
        break;
    }
  }
  u.dma = std::make_unique<ReadDma>(l_, p_, insn, t_, dp_, dram_, opts_.port);
  u.dma_index = index;
  u.dma_start = t_;
  if (!u.dma->requesting()) finish_dma(u);
}

// A LOAD completes when its filler has written the last element (step 3 calls this once its
// last burst is granted).
void CycleRun::finish_dma(Unit& u) {
  const uint64_t d = u.dma->done();
  u.free_at = d + 1;
  u.cycles->stall_dram += u.dma->dram_stall();
  u.cycles->busy += (d - u.dma_start + 1) - u.dma->dram_stall();
  schedule_pushes(u, program_[u.dma_index], u.dma_index, d);
  if (trace_) {
    auto args = slice_args(u.dma_index);
    args["dram_stall_cycles"] = u.dma->dram_stall();
    trace_->slice(u.track, describe(u.dma_index, program_[u.dma_index]), u.dma_start, d, args);
  }
  u.dma.reset();
  ++completed_;
}

void CycleRun::start_gemm_alu(Unit& u, const Insn& insn, size_t index) {
  const IssueTiming it = pipe_.run(insn, index, t_, dp_, opts_.cancel);
  u.free_at = it.issue_end + 1;
  u.cycles->busy += it.busy;
  u.cycles->stall_hazard += it.hazard;
  if (insn.op() == Opcode::kGemm) {
    st_.gemm_uops += it.iterations;
    if (!insn.reset_reg) st_.counters.gemm_counter += it.iterations;
  } else {
    st_.alu_uops += it.iterations;
    st_.counters.alu_counter += it.iterations;
  }
  schedule_pushes(u, insn, index, it.done);
  if (trace_) {
    auto args = slice_args(index);
    args["uops"] = it.iterations;
    args["hazard_cycles"] = it.hazard;
    args["writes_land"] = it.done;
    trace_->slice(u.track, describe(index, insn), t_, it.issue_end, args);
  }
  ++completed_;
}

void CycleRun::start_store(Unit& u, const Insn& insn, size_t index) {
  const StoreTiming s =
      run_store(l_, mem_, insn, t_, dp_, dram_, opts_.port, static_cast<int64_t>(index));
  if (insn.x_size > 0) {
    st_.counters.out_store_nbytes +=
        static_cast<uint64_t>(insn.y_size * insn.x_size * l_.out_elem_bytes);
  }
  u.free_at = s.done + 1;
  u.cycles->stall_dram += s.dram_stall;
  u.cycles->busy += (s.done - t_ + 1) - s.dram_stall;
  schedule_pushes(u, insn, index, s.done);
  if (trace_) trace_->slice(u.track, describe(index, insn), t_, s.done, slice_args(index));
  ++completed_;
}

void CycleRun::start_finish(Unit& u, const Insn& insn, size_t index) {
  u.free_at = t_ + 1;
  u.cycles->busy += 1;
  schedule_pushes(u, insn, index, t_);
  if (trace_) trace_->slice(u.track, describe(index, insn), t_, t_, slice_args(index));
  ++completed_;
  finished_ = true;
  total_ = t_ + 1;
}

}  // namespace weft::sim::cycle
