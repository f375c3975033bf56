// One run of the cycle model: its set-up, the event loop and the tick that lists the steps of a
// cycle in order (cycle_run.h names the file of each step), and helpers the steps share.
#include "simulator/cycle/cycle_run.h"

#include "hardware/isa/assembly.h"
#include "simulator/common/program_error.h"

namespace weft::sim::cycle {

using isa::Insn;
using isa::Module;
using isa::Opcode;

CycleRun::CycleRun(const isa::Layout& l, const isa::Platform& p, const ModelOptions& model,
                   Datapath& dp, const std::vector<Insn>& program, std::vector<uint8_t>& dram,
                   uint64_t insn_offset, uint64_t insn_count, const RunOptions& opts)
    : l_(l),
      p_(p),
      cfg_(l.config),
      program_(program),
      dram_(dram),
      opts_(opts),
      trace_(opts.trace),
      dp_(dp),
      mem_(p),
      pipe_(l, model.shortcuts),
      fetch_(l, p, insn_offset, insn_count),
      insn_offset_(insn_offset),
      insn_count_(insn_count),
      shortcuts_(model.shortcuts) {
  mem_.set_faults(opts.faults);
  const Track tracks[3] = {Track::kLoad, Track::kCompute, Track::kStore};
  ModuleCycles* cycles[3] = {&st_.load, &st_.compute, &st_.store};
  for (int m = 0; m < 3; ++m) {
    units_[m].id = static_cast<Module>(m);
    units_[m].track = tracks[m];
    units_[m].cycles = cycles[m];
  }
  for (size_t i = 0; i < program_.size(); ++i)
    units_[int(isa::route(program_[i]))].routed.push_back(i);
}

bool CycleRun::tick() {
  deliver_events();    // 1. tokens, commands and freed queue slots made visible at t
  start_units();       // 2. units start instructions, in the order load, compute, store
  if (finished_) return false;
  grant_read_burst();  // 3. one read burst granted: compute's DMA, then load's, then fetch
  dispatch();          // 4. fetch dispatches its oldest arrived instruction if there is room
  uint64_t next = next_cycle();  // 5. the next cycle at which anything can happen
  if (next == kNever) throw_deadlock();
  next = stream_bursts(next);     //    or later, past one DMA's bursts that nothing else meets
  account(next);  // 6. [t, next) to the state of every unit not executing, and to fetch
  advance(next);  // 7. t = next; progress and cancellation now and then
  return true;
}

CycleStats CycleRun::execute() {
  while (tick()) {
  }
  account_finish_cycle();
  check_leftovers();
  return collect_stats();
}

bool CycleRun::waits_for_drain(const Unit& u) const {
  if (u.id != Module::kCompute || u.cmdq.empty() || t_ >= pipe_.drained()) return false;
  const Opcode op = program_[u.cmdq.front()].op();
  return op == Opcode::kLoad || op == Opcode::kFinish;
}

int CycleRun::blocking_queue_of(const Unit& u) const {
  return sim::blocking_queue(program_[u.cmdq.front()], u.id, tokens_);
}

void CycleRun::close_wait(Unit& u, uint64_t t) {
  if (trace_ && u.wait != Wait::kNone && t > u.wait_since) {
    static const char* const kName[] = {"", "stall: command queue empty", "stall: token",
                                        "stall: pipeline drain", "idle"};
    trace_->slice(u.track, std::string(kName[int(u.wait)]) + u.wait_detail, u.wait_since, t - 1,
                  nlohmann::json::object(), "stall");
  }
  u.wait = Wait::kNone;
}

nlohmann::json CycleRun::slice_args(size_t index) const {
  return nlohmann::json{{"insn", index}, {"asm", isa::format_insn(l_, program_[index])}};
}

}  // namespace weft::sim::cycle
