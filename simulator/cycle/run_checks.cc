// The end of a cycle-model run (cycle_run.h): what FINISH must not leave behind (a module
// still executing, instructions not started, tokens in a queue), named as the functional model
// names them, then the statistics, whose accounting must cover every cycle of every module.
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_run.h"

namespace weft::sim::cycle {

void CycleRun::check_leftovers() const {
  for (const Unit& u : units_) {
    if (u.id == isa::Module::kCompute) continue;
    if (u.dma || u.free_at > total_) {
      const size_t index = u.dma ? u.dma_index : u.running_index;
      throw ProgramError(isa::reg::kErrLeftover, static_cast<int64_t>(index),
                         "FINISH ran at cycle " + std::to_string(total_ - 1) + " while the " +
                             isa::module_name(u.id) + " module was still executing " +
                             describe(index, program_[index]) +
                             "; make FINISH wait for it with a dependency token");
    }
  }
  for (const Unit& u : units_) {
    if (u.started < u.routed.size()) {
      const size_t index = u.routed[u.started];
      throw work_left_at_finish(u.id, u.routed.size() - u.started, index, program_[index]);
    }
  }
  for (int q = 0; q < kNumTokenQueues; ++q) {
    if (tokens_[q] + in_flight_[q] != 0) {
      const size_t last = last_pusher_[q];
      throw tokens_left_at_finish(tokens_[q] + in_flight_[q], static_cast<TokenQueue>(q), last,
                                  program_[last]);
    }
  }
}

CycleStats CycleRun::collect_stats() {
  st_.cycles = total_;
  st_.insn_fetch_nbytes = fetch_.fetched_bytes();
  st_.read_bursts = mem_.read_bursts();
  st_.read_beats = mem_.read_beats();
  st_.write_bursts = mem_.write_bursts();
  st_.write_beats = mem_.write_beats();
  for (const ModuleCycles* m : {&st_.load, &st_.compute, &st_.store}) {
    if (m->total() != total_) {
      throw InternalError("cycle accounting: a module accounts " + std::to_string(m->total()) +
                          " of " + std::to_string(total_) + " cycles");
    }
  }
  if (st_.fetch.total() != total_) {
    throw InternalError("cycle accounting: fetch accounts " + std::to_string(st_.fetch.total()) +
                        " of " + std::to_string(total_) + " cycles");
  }
  if (opts_.progress) opts_.progress(total_, completed_, insn_count_);
  return st_;
}

}  // namespace weft::sim::cycle
