// Steps 5 to 7 of a cycle-model cycle (cycle_run.h) and the accounting of the FINISH cycle.
// Step 5 finds the next cycle at which anything can happen (no such cycle before FINISH is a
// deadlock); step 6 accounts the skipped span [t, next) to what every unit that is not
// executing waits for (nothing can change it before `next`) and to fetch's state; step 7 moves
// time on and, now and then, reports progress and honours cancellation.
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_run.h"

namespace weft::sim::cycle {

uint64_t CycleRun::next_cycle(const Unit* except_dma) const {
  uint64_t next = events_.empty() ? kNever : events_.top().time;
  for (const Unit& u : units_) {
    if (u.dma) {
      if (u.dma->requesting() && &u != except_dma)
        next = std::min(next, std::max(u.dma->want(), t_ + 1));
    } else if (t_ < u.free_at) {
      next = std::min(next, u.free_at);
    } else if (waits_for_drain(u)) {
      next = std::min(next, pipe_.drained());
    }
  }
  if (fetch_.wants_burst()) next = std::min(next, std::max(fetch_.want(), t_ + 1));
  if (dispatched_) next = std::min(next, t_ + 1);
  if (fetch_.has_head() && fetch_.head_ready() > t_) next = std::min(next, fetch_.head_ready());
  return next;
}

void CycleRun::throw_deadlock() const {
  std::string msg =
      "deadlock at cycle " + std::to_string(t_) + ": no unit can proceed and FINISH has not run;";
  for (const Unit& u : units_) {
    if (u.executing(t_)) continue;
    if (!u.cmdq.empty()) {
      const size_t index = u.cmdq.front();
      const int q = blocking_queue_of(u);
      msg += " " +
             deadlock_token_wait(u.id, index, program_[index],
                                 static_cast<TokenQueue>(q < 0 ? 0 : q)) +
             ";";
    } else if (u.started < u.routed.size()) {
      const size_t index = u.routed[u.started];
      msg += " " + deadlock_fetch_wait(u.id, index, program_[index]) + ";";
    }
  }
  if (dispatch_blocked_) {
    const size_t index = fetch_.head_index();
    msg += " " + deadlock_dispatch_blocked(index, program_[index]) + ";";
  }
  msg.pop_back();
  throw ProgramError(isa::reg::kErrDeadlock, ProgramError::kNoInsn, msg);
}

void CycleRun::account(uint64_t next) {
  const uint64_t span = next - t_;
  for (Unit& u : units_) {
    if (u.executing(t_)) continue;
    Wait w;
    std::string detail;
    if (!u.cmdq.empty()) {
      if (waits_for_drain(u)) {
        w = Wait::kDrain;
        u.cycles->stall_drain += span;
      } else {
        w = Wait::kToken;
        u.cycles->stall_token += span;
        const int q = blocking_queue_of(u);
        if (q >= 0) detail = std::string(" ") + queue_name(static_cast<TokenQueue>(q));
      }
    } else if (u.started < u.routed.size()) {
      w = Wait::kCmd;
      u.cycles->stall_cmd_empty += span;
    } else {
      w = Wait::kIdle;
      u.cycles->idle += span;
    }
    if (trace_ && (w != u.wait || detail != u.wait_detail)) {
      close_wait(u, t_);
      u.wait = w;
      u.wait_since = t_;
      u.wait_detail = detail;
    }
  }
  if (dispatched_) {
    st_.fetch.busy += span;
  } else if (fetch_.all_dispatched()) {
    st_.fetch.idle += span;
  } else if (dispatch_blocked_) {
    st_.fetch.stall_cmd_full += span;
  } else {
    st_.fetch.stall_dram += span;
  }
}

void CycleRun::advance(uint64_t next) {
  t_ = next;
  if ((++iterations_ & 0x3FF) != 0) return;
  if (opts_.port) opts_.port->reached(t_);
  if ((iterations_ & 0xFFFF) != 0) return;
  if (opts_.progress) opts_.progress(t_, completed_, insn_count_);
  if (opts_.cancel && opts_.cancel->load(std::memory_order_relaxed)) throw RunCancelled();
}

// FINISH ran at total_ - 1: that cycle is accounted for the units not executing.
void CycleRun::account_finish_cycle() {
  for (Unit& u : units_) {
    if (u.executing(total_ - 1)) continue;
    (u.started < u.routed.size() ? u.cycles->stall_cmd_empty : u.cycles->idle) += 1;
    close_wait(u, total_ - 1);
  }
  if (fetch_.all_dispatched())
    ++st_.fetch.idle;
  else
    ++st_.fetch.stall_dram;
  for (Unit& u : units_) close_wait(u, total_);
}

}  // namespace weft::sim::cycle
