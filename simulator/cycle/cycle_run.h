// One run of the cycle model (CycleSim::run): the units, token queues, events and counters of
// that run, and its tick. Time advances from one event to the next; within a cycle the work is
// done in the order tick() lists once, as numbered steps (in the manner of Ramulator 2's
// tick), each step a member function defined in the file named beside it:
//   1. deliver_events     tokens, commands and freed queue slots visible now  (run_events.cc)
//   2. start_units        load, compute, store start instructions              (run_start.cc)
//   3. grant_read_burst   one read burst: compute's DMA, load's DMA, fetch    (run_fetch.cc)
//   4. dispatch           fetch hands its oldest arrived instruction on        (run_fetch.cc)
//   5. next_cycle         the next cycle at which anything can happen      (run_accounting.cc)
//      stream_bursts      while that is only one DMA's next read burst, grants it there
//                         (the same grants at the same cycles, without the ticks) (run_fetch.cc)
//   6. account            [t, next) to every unit not executing, and fetch (run_accounting.cc)
//   7. advance            t = next; progress and cancellation now and then (run_accounting.cc)
// Skipped cycles are accounted to the state every unit was in, which cannot change between
// events, so the count is the same as ticking every cycle.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/common/tokens.h"
#include "simulator/cycle/compute_pipe.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/cycle/cycle_stats.h"
#include "simulator/cycle/datapath.h"
#include "simulator/cycle/fetch_unit.h"
#include "simulator/cycle/read_dma.h"
#include "simulator/cycle/trace.h"
#include "simulator/memory/axi_memory.h"

namespace weft::sim::cycle {

/// What a unit that executes nothing waits for (the trace labels its interval with it).
enum class Wait { kNone, kCmd, kToken, kDrain, kIdle };

/// One module (load, compute or store) during a run.
struct Unit {
  isa::Module id;
  Track track;
  ModuleCycles* cycles;
  std::deque<size_t> cmdq;       // commands visible to the module
  int occupancy = 0;             // fetch's view of the command queue
  uint64_t free_at = 0;          // first cycle it may start its next instruction
  std::unique_ptr<ReadDma> dma;  // a LOAD in flight
  size_t dma_index = 0;
  uint64_t dma_start = 0;
  std::vector<size_t> routed;  // program indices routed here, in order
  size_t started = 0;
  size_t running_index = 0;  // the instruction occupying the unit until free_at
  Wait wait = Wait::kNone;   // for the trace: the open waiting interval
  uint64_t wait_since = 0;
  std::string wait_detail;

  /// Whether it executes an instruction at cycle t (a LOAD in flight, or not yet free).
  bool executing(uint64_t t) const { return dma != nullptr || t < free_at; }
};

/// Something that becomes visible at a cycle: a token, a command, a freed command-queue slot.
struct Event {
  uint64_t time;
  uint64_t seq;
  enum Kind { kToken, kCmdVisible, kCmdFreed } kind;
  int unit_or_queue;
  size_t index;  // instruction index (the pusher, or the command)
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

/// The state of one run and its steps.
class CycleRun {
 public:
  CycleRun(const isa::Layout& l, const isa::Platform& p, const ModelOptions& model, Datapath& dp,
           const std::vector<isa::Insn>& program, std::vector<uint8_t>& dram,
           uint64_t insn_offset, uint64_t insn_count, const RunOptions& opts);

  /// Runs to FINISH and checks what it left; throws as CycleSim::run documents.
  CycleStats execute();

 private:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  /// One cycle of work at t_ (the numbered steps); false once FINISH has run.
  bool tick();

  // Step 1 (run_events.cc).
  void deliver_events();
  // Step 2 (run_start.cc).
  void start_units();
  void try_start(Unit& u);
  void pop_tokens(Unit& u, const isa::Insn& insn, size_t index);
  void start_load(Unit& u, const isa::Insn& insn, size_t index);
  void start_gemm_alu(Unit& u, const isa::Insn& insn, size_t index);
  void start_store(Unit& u, const isa::Insn& insn, size_t index);
  void start_finish(Unit& u, const isa::Insn& insn, size_t index);
  void finish_dma(Unit& u);
  void schedule_pushes(Unit& u, const isa::Insn& insn, size_t index, uint64_t done);
  // Steps 3 and 4 (run_fetch.cc).
  void grant_read_burst();
  void dispatch();
  // Steps 5 to 7 (run_accounting.cc).
  /// The next cycle at which anything can happen; `except_dma`'s requests left out.
  uint64_t next_cycle(const Unit* except_dma = nullptr) const;
  uint64_t stream_bursts(uint64_t next);
  void account(uint64_t next);
  void advance(uint64_t next);
  // The end of the run (run_accounting.cc, run_checks.cc).
  [[noreturn]] void throw_deadlock() const;
  void account_finish_cycle();
  void check_leftovers() const;
  CycleStats collect_stats();

  // Helpers shared by the steps.
  bool waits_for_drain(const Unit& u) const;
  int blocking_queue_of(const Unit& u) const;
  void close_wait(Unit& u, uint64_t t);
  nlohmann::json slice_args(size_t index) const;
  void push_event(uint64_t time, Event::Kind kind, int unit_or_queue, size_t index) {
    events_.push({time, seq_++, kind, unit_or_queue, index});
  }

  const isa::Layout& l_;
  const isa::Platform& p_;
  const isa::HwConfig& cfg_;
  const std::vector<isa::Insn>& program_;
  std::vector<uint8_t>& dram_;
  const RunOptions& opts_;
  Trace* trace_;
  Datapath& dp_;
  AxiMemory mem_;
  ComputePipe pipe_;
  FetchUnit fetch_;
  uint64_t insn_offset_, insn_count_;
  bool shortcuts_;  // ModelOptions::shortcuts: stream_bursts too (off: the tick-by-tick reference)
  CycleStats st_;

  std::array<Unit, 3> units_;  // indexed by isa::Module: load, compute, store
  std::array<int64_t, kNumTokenQueues> tokens_{};      // visible tokens per queue
  std::array<int64_t, kNumTokenQueues> in_flight_{};   // pushed, visible next cycle
  std::array<size_t, kNumTokenQueues> last_pusher_{};  // for the leftover message
  std::array<std::deque<std::pair<Track, uint64_t>>, kNumTokenQueues> push_origin_;  // trace
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;

  uint64_t t_ = 0;            // the current cycle
  uint64_t iterations_ = 0;   // ticks so far
  uint64_t completed_ = 0;    // instructions completed
  bool finished_ = false;     // FINISH has run, at total_ - 1
  uint64_t total_ = 0;
  bool dispatched_ = false;        // step 4 dispatched this cycle
  bool dispatch_blocked_ = false;  // step 4 found its queue full
};

}  // namespace weft::sim::cycle
