// Steps 3 and 4 of a cycle-model cycle (cycle_run.h). Step 3: the memory grants one read burst
// a cycle, to compute's DMA, then load's, then fetch; a requester that loses, or finds no free
// read slot, asks again when one is free. Step 4: fetch dispatches its oldest instruction once
// it has arrived and the command queue of the module that runs it has room; the command is
// visible there the next cycle.
#include "simulator/cycle/cycle_run.h"

namespace weft::sim::cycle {

void CycleRun::grant_read_burst() {
  const uint64_t slot = mem_.next_read_slot(t_);
  bool granted = false;
  for (Unit* u : {&units_[int(isa::Module::kCompute)], &units_[int(isa::Module::kLoad)]}) {
    if (!u->dma || !u->dma->requesting() || u->dma->want() > t_) continue;
    if (slot > t_ || granted) {
      u->dma->retry_at(slot > t_ ? slot : t_ + 1);
      continue;
    }
    u->dma->accepted(t_, mem_.accept_read(t_, u->dma->next_beats(),
                                          {isa::module_name(u->id),
                                           static_cast<int64_t>(u->dma_index),
                                           u->dma->next_addr()}));
    granted = true;
    if (!u->dma->requesting()) finish_dma(*u);
  }
  if (!fetch_.wants_burst() || fetch_.want() > t_) return;
  if (slot > t_ || granted) {
    fetch_.retry_at(slot > t_ ? slot : t_ + 1);
    return;
  }
  const uint64_t first_insn = fetch_.fetched_bytes() / 16;
  const uint32_t beats = fetch_.next_beats();
  const uint64_t first_beat = mem_.accept_read(
      t_, beats, {"fetch", static_cast<int64_t>(first_insn), insn_offset_ + fetch_.fetched_bytes()});
  fetch_.accepted(t_, first_beat);
  if (trace_) {
    const uint64_t last_insn = fetch_.fetched_bytes() / 16 - 1;
    trace_->slice(Track::kFetch,
                  "fetch " + std::to_string(first_insn) + ".." + std::to_string(last_insn), t_,
                  first_beat + beats - 1, {{"beats", beats}}, "fetch");
  }
}

// Step 5, continued. A LOAD of many short rows takes one tick per burst, each of which only
// grants that burst. When the next cycle is the next request of the only requesting DMA and
// nothing else can happen before some later cycle `other` (no event, unit, fetch or dispatch),
// the ticks up to `other` would each do exactly what this loop does: grant the burst if the
// memory has a slot, else retry when it frees one. Their accounting is one span, since no
// unit's state changes in it. The last burst is left to a tick, which finishes the LOAD.
uint64_t CycleRun::stream_bursts(uint64_t next) {
  if (!shortcuts_ || dispatched_) return next;
  Unit* only = nullptr;
  for (Unit& u : units_) {
    if (!u.dma || !u.dma->requesting()) continue;
    if (only) return next;
    only = &u;
  }
  if (!only || std::max(only->dma->want(), t_ + 1) != next) return next;
  const uint64_t other = next_cycle(only);
  ReadDma& dma = *only->dma;
  const char* module = isa::module_name(only->id);
  const auto index = static_cast<int64_t>(only->dma_index);
  while (next < other && !dma.last_burst()) {
    const uint64_t slot = mem_.next_read_slot(next);
    if (slot > next) {
      dma.retry_at(slot);
      next = slot;
      continue;
    }
    dma.accepted(next, mem_.accept_read(next, dma.next_beats(), {module, index, dma.next_addr()}));
    next = std::max(dma.want(), next + 1);
  }
  return std::min(next, other);
}

void CycleRun::dispatch() {
  dispatched_ = false;
  dispatch_blocked_ = false;
  if (!fetch_.has_head() || fetch_.head_ready() > t_) return;
  const size_t index = fetch_.head_index();
  Unit& u = units_[int(isa::route(program_[index]))];
  if (u.occupancy >= cfg_.cmd_queue_depth) {
    dispatch_blocked_ = true;
    return;
  }
  ++u.occupancy;
  fetch_.pop_head();
  push_event(t_ + 1, Event::kCmdVisible, int(u.id), index);
  dispatched_ = true;
}

}  // namespace weft::sim::cycle
