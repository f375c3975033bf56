// Step 1 of a cycle-model cycle (cycle_run.h): what earlier cycles scheduled becomes visible
// now: tokens (a push that would take a queue past its depth is an error, never a drop),
// commands in a module's queue, and command-queue slots freed for fetch.
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_run.h"

namespace weft::sim::cycle {

void CycleRun::deliver_events() {
  while (!events_.empty() && events_.top().time <= t_) {
    const Event e = events_.top();
    events_.pop();
    switch (e.kind) {
      case Event::kToken: {
        const int q = e.unit_or_queue;
        --in_flight_[q];
        if (tokens_[q] == cfg_.token_queue_depth) {
          throw token_overflow(e.index, program_[e.index], static_cast<TokenQueue>(q),
                               cfg_.token_queue_depth);
        }
        ++tokens_[q];
        break;
      }
      case Event::kCmdVisible:
        units_[e.unit_or_queue].cmdq.push_back(e.index);
        break;
      case Event::kCmdFreed:
        --units_[e.unit_or_queue].occupancy;
        break;
    }
  }
}

// Pushes happen when an instruction completes (`done`) and are visible the cycle after.
void CycleRun::schedule_pushes(Unit& u, const isa::Insn& insn, size_t index, uint64_t done) {
  for (bool prev : {true, false}) {
    if (!(prev ? insn.push_prev_dep : insn.push_next_dep)) continue;
    const TokenQueue q = push_queue_of(u.id, prev);
    push_event(done + 1, Event::kToken, int(q), index);
    ++in_flight_[int(q)];
    last_pusher_[int(q)] = index;
    if (trace_) {
      trace_->instant(u.track, std::string("push ") + queue_name(q), done, {{"insn", index}});
      push_origin_[int(q)].push_back({u.track, done});
    }
  }
}

// Pops happen in the cycle an instruction starts.
void CycleRun::pop_tokens(Unit& u, const isa::Insn& insn, size_t index) {
  for (bool prev : {true, false}) {
    if (!(prev ? insn.pop_prev_dep : insn.pop_next_dep)) continue;
    const TokenQueue q = pop_queue_of(u.id, prev);
    --tokens_[int(q)];
    if (trace_) {
      trace_->instant(u.track, std::string("pop ") + queue_name(q), t_, {{"insn", index}});
      const auto [from, t0] = push_origin_[int(q)].front();
      push_origin_[int(q)].pop_front();
      trace_->flow(from, t0, u.track, t_, queue_name(q));
    }
  }
}

}  // namespace weft::sim::cycle
