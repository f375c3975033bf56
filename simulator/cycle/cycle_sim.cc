// The cycle model's top: event loop, per-cycle step order and accounting; see cycle_sim.h
// and docs/microarchitecture.md.
#include "simulator/cycle/cycle_sim.h"

#include <array>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <string>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"
#include "simulator/common/tokens.h"
#include "simulator/cycle/compute_pipe.h"
#include "simulator/cycle/datapath.h"
#include "simulator/cycle/fetch_unit.h"
#include "simulator/cycle/read_dma.h"
#include "simulator/cycle/store_dma.h"
#include "simulator/memory/axi_memory.h"

namespace weft::sim::cycle {

using isa::Insn;
using isa::Module;
using isa::Opcode;

struct CycleSim::State {
  State(const isa::Layout& l, KernelIsa isa) : dp(l, isa) {}
  Datapath dp;
};

CycleSim::CycleSim(const isa::Layout& layout, const isa::Platform& platform,
                   const ModelOptions& model)
    : l_(layout),
      p_(platform),
      model_(model),
      state_(std::make_unique<State>(layout, model.kernel)) {
  AxiMemory check(platform);  // validates the platform now rather than at the first run
}

KernelIsa CycleSim::kernel_isa() const { return state_->dp.kernel().isa(); }

CycleSim::~CycleSim() = default;

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

enum class Wait { kNone, kCmd, kToken, kDrain, kIdle };

const char* wait_name(Wait w) {
  switch (w) {
    case Wait::kCmd:
      return "stall: command queue empty";
    case Wait::kToken:
      return "stall: token";
    case Wait::kDrain:
      return "stall: pipeline drain";
    case Wait::kIdle:
      return "idle";
    case Wait::kNone:
      break;
  }
  return "";
}

// One module (load, compute or store) during a run.
struct Unit {
  Module id;
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
};

struct Event {
  uint64_t time;
  uint64_t seq;
  enum Kind { kToken, kCmdVisible, kCmdFreed } kind;
  int unit_or_queue;
  size_t index;  // instruction index (the pusher, or the command)
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

}  // namespace

CycleStats CycleSim::run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t insn_count,
                         const RunOptions& opts) {
  if (opts.port && insn_count > 0 && insn_offset <= dram.size() &&
      insn_count <= (dram.size() - insn_offset) / isa::kInsnBytes) {
    // The whole stream is decoded before cycle 0 (fetch_program), so it is read then.
    std::vector<Burst> bursts;
    split_bursts(p_, insn_offset, insn_count * isa::kInsnBytes, bursts);
    for (const Burst& b : bursts) opts.port->before_read(0, b.first_byte, b.nbytes);
  }
  const std::vector<Insn> program = fetch_program(l_, dram, insn_offset, insn_count);
  const isa::HwConfig& cfg = l_.config;
  Datapath& dp = state_->dp;
  AxiMemory mem(p_);
  mem.set_faults(opts.faults);
  ComputePipe pipe(l_, model_.shortcuts);
  FetchUnit fetch(l_, p_, insn_offset, insn_count);
  Trace* trace = opts.trace;
  CycleStats st;

  std::array<Unit, 3> units;
  units[0].id = Module::kLoad;
  units[0].track = Track::kLoad;
  units[0].cycles = &st.load;
  units[1].id = Module::kCompute;
  units[1].track = Track::kCompute;
  units[1].cycles = &st.compute;
  units[2].id = Module::kStore;
  units[2].track = Track::kStore;
  units[2].cycles = &st.store;
  for (size_t i = 0; i < program.size(); ++i)
    units[int(isa::route(program[i]))].routed.push_back(i);
  Unit& compute = units[int(Module::kCompute)];

  std::array<int64_t, kNumTokenQueues> tokens{};      // visible tokens per queue
  std::array<int64_t, kNumTokenQueues> in_flight{};   // pushed, visible next cycle
  std::array<size_t, kNumTokenQueues> last_pusher{};  // for the leftover message
  std::array<std::deque<std::pair<Track, uint64_t>>, kNumTokenQueues> push_origin;  // trace
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  uint64_t seq = 0;
  uint64_t completed = 0;
  bool finished = false;
  uint64_t total = 0;

  auto schedule_pushes = [&](Unit& u, const Insn& insn, size_t index, uint64_t done) {
    for (bool prev : {true, false}) {
      if (!(prev ? insn.push_prev_dep : insn.push_next_dep)) continue;
      const TokenQueue q = push_queue_of(u.id, prev);
      events.push({done + 1, seq++, Event::kToken, int(q), index});
      ++in_flight[int(q)];
      last_pusher[int(q)] = index;
      if (trace) {
        trace->instant(u.track, std::string("push ") + queue_name(q), done, {{"insn", index}});
        push_origin[int(q)].push_back({u.track, done});
      }
    }
  };
  auto blocking_queue = [&](const Insn& insn, Module m) {
    return sim::blocking_queue(insn, m, tokens);
  };
  auto needs_drain = [](const Insn& insn) {
    return insn.op() == Opcode::kLoad || insn.op() == Opcode::kFinish;
  };
  auto slice_args = [&](size_t index) {
    return nlohmann::json{{"insn", index}, {"asm", isa::format_insn(l_, program[index])}};
  };
  auto finish_dma = [&](Unit& u) {
    const uint64_t d = u.dma->done();
    u.free_at = d + 1;
    u.cycles->stall_dram += u.dma->dram_stall();
    u.cycles->busy += (d - u.dma_start + 1) - u.dma->dram_stall();
    schedule_pushes(u, program[u.dma_index], u.dma_index, d);
    if (trace) {
      auto args = slice_args(u.dma_index);
      args["dram_stall_cycles"] = u.dma->dram_stall();
      trace->slice(u.track, describe(u.dma_index, program[u.dma_index]), u.dma_start, d, args);
    }
    u.dma.reset();
    ++completed;
  };
  auto close_wait = [&](Unit& u, uint64_t t) {
    if (trace && u.wait != Wait::kNone && t > u.wait_since) {
      trace->slice(u.track, std::string(wait_name(u.wait)) + u.wait_detail, u.wait_since, t - 1,
                   nlohmann::json::object(), "stall");
    }
    u.wait = Wait::kNone;
  };

  // Step 2: a unit starts its next instruction when it is free, has a command, (compute:
  // LOAD and FINISH find the pipeline drained) and its tokens are there; pops happen now.
  auto try_start = [&](Unit& u, uint64_t t) {
    if (u.dma || t < u.free_at || u.cmdq.empty()) return;
    const size_t index = u.cmdq.front();
    const Insn& insn = program[index];
    if (u.id == Module::kCompute && needs_drain(insn) && t < pipe.drained()) return;
    if (blocking_queue(insn, u.id) >= 0) return;
    close_wait(u, t);
    for (bool prev : {true, false}) {
      if (!(prev ? insn.pop_prev_dep : insn.pop_next_dep)) continue;
      const TokenQueue q = pop_queue_of(u.id, prev);
      --tokens[int(q)];
      if (trace) {
        trace->instant(u.track, std::string("pop ") + queue_name(q), t, {{"insn", index}});
        const auto [from, t0] = push_origin[int(q)].front();
        push_origin[int(q)].pop_front();
        trace->flow(from, t0, u.track, t, queue_name(q));
      }
    }
    u.cmdq.pop_front();
    events.push({t + 1, seq++, Event::kCmdFreed, int(u.id), index});
    ++u.started;
    u.running_index = index;
    ++st.counters.insn_count;
    switch (insn.op()) {
      case Opcode::kLoad: {
        if (insn.x_size > 0) {
          const uint64_t bytes =
              static_cast<uint64_t>(insn.y_size * insn.x_size * l_.elem_bytes(insn.mem()));
          switch (insn.mem()) {
            case isa::MemType::kInp:
              st.counters.inp_load_nbytes += bytes;
              break;
            case isa::MemType::kWgt:
              st.counters.wgt_load_nbytes += bytes;
              break;
            case isa::MemType::kUop:
              st.counters.uop_load_nbytes += bytes;
              break;
            default:
              st.counters.acc_load_nbytes += bytes;
              break;
          }
        }
        u.dma = std::make_unique<ReadDma>(l_, p_, insn, t, dp, dram, opts.port);
        u.dma_index = index;
        u.dma_start = t;
        if (!u.dma->requesting()) finish_dma(u);
        return;
      }
      case Opcode::kGemm:
      case Opcode::kAlu: {
        const IssueTiming it = pipe.run(insn, index, t, dp, opts.cancel);
        u.free_at = it.issue_end + 1;
        u.cycles->busy += it.busy;
        u.cycles->stall_hazard += it.hazard;
        if (insn.op() == Opcode::kGemm) {
          st.gemm_uops += it.iterations;
          if (!insn.reset_reg) st.counters.gemm_counter += it.iterations;
        } else {
          st.alu_uops += it.iterations;
          st.counters.alu_counter += it.iterations;
        }
        schedule_pushes(u, insn, index, it.done);
        if (trace) {
          auto args = slice_args(index);
          args["uops"] = it.iterations;
          args["hazard_cycles"] = it.hazard;
          args["writes_land"] = it.done;
          trace->slice(u.track, describe(index, insn), t, it.issue_end, args);
        }
        ++completed;
        return;
      }
      case Opcode::kStore: {
        const StoreTiming s =
            run_store(l_, mem, insn, t, dp, dram, opts.port, static_cast<int64_t>(index));
        if (insn.x_size > 0) {
          st.counters.out_store_nbytes +=
              static_cast<uint64_t>(insn.y_size * insn.x_size * l_.out_elem_bytes);
        }
        u.free_at = s.done + 1;
        u.cycles->stall_dram += s.dram_stall;
        u.cycles->busy += (s.done - t + 1) - s.dram_stall;
        schedule_pushes(u, insn, index, s.done);
        if (trace) trace->slice(u.track, describe(index, insn), t, s.done, slice_args(index));
        ++completed;
        return;
      }
      case Opcode::kFinish:
        u.free_at = t + 1;
        u.cycles->busy += 1;
        schedule_pushes(u, insn, index, t);
        if (trace) trace->slice(u.track, describe(index, insn), t, t, slice_args(index));
        ++completed;
        finished = true;
        total = t + 1;
        return;
    }
  };

  std::string deadlock;
  uint64_t t = 0;
  uint64_t iterations = 0;
  while (true) {
    // Step 1: tokens, commands and freed queue slots made visible at this cycle.
    while (!events.empty() && events.top().time <= t) {
      const Event e = events.top();
      events.pop();
      if (e.kind == Event::kToken) {
        const auto q = static_cast<TokenQueue>(e.unit_or_queue);
        --in_flight[e.unit_or_queue];
        if (tokens[e.unit_or_queue] == cfg.token_queue_depth) {
          throw token_overflow(e.index, program[e.index], q, cfg.token_queue_depth);
        }
        ++tokens[e.unit_or_queue];
      } else if (e.kind == Event::kCmdVisible) {
        units[e.unit_or_queue].cmdq.push_back(e.index);
      } else {
        --units[e.unit_or_queue].occupancy;
      }
    }
    // Step 2: units start instructions, in the order load, compute, store.
    for (Unit& u : units) try_start(u, t);
    if (finished) break;

    // Step 3: one read burst is granted per cycle: compute's DMA, then load's, then fetch.
    {
      const uint64_t slot = mem.next_read_slot(t);
      bool granted = false;
      for (Unit* u : {&compute, &units[int(Module::kLoad)]}) {
        if (!u->dma || !u->dma->requesting() || u->dma->want() > t) continue;
        if (slot > t || granted) {
          u->dma->retry_at(slot > t ? slot : t + 1);
          continue;
        }
        u->dma->accepted(t, mem.accept_read(t, u->dma->next_beats(),
                                            {isa::module_name(u->id),
                                             static_cast<int64_t>(u->dma_index),
                                             u->dma->next_addr()}));
        granted = true;
        if (!u->dma->requesting()) finish_dma(*u);
      }
      if (fetch.wants_burst() && fetch.want() <= t) {
        if (slot > t || granted) {
          fetch.retry_at(slot > t ? slot : t + 1);
        } else {
          const uint64_t first_insn = fetch.fetched_bytes() / 16;
          const uint32_t beats = fetch.next_beats();
          const uint64_t first_beat =
              mem.accept_read(t, beats,
                              {"fetch", static_cast<int64_t>(first_insn),
                               insn_offset + fetch.fetched_bytes()});
          fetch.accepted(t, first_beat);
          if (trace) {
            const uint64_t last_insn = fetch.fetched_bytes() / 16 - 1;
            trace->slice(Track::kFetch,
                         "fetch " + std::to_string(first_insn) + ".." + std::to_string(last_insn),
                         t, first_beat + beats - 1, {{"beats", beats}}, "fetch");
          }
        }
      }
    }

    // Step 4: fetch dispatches its oldest instruction if it has arrived and its queue has room.
    bool dispatched = false, dispatch_blocked = false;
    if (fetch.has_head() && fetch.head_ready() <= t) {
      const size_t index = fetch.head_index();
      Unit& u = units[int(isa::route(program[index]))];
      if (u.occupancy < cfg.cmd_queue_depth) {
        ++u.occupancy;
        fetch.pop_head();
        events.push({t + 1, seq++, Event::kCmdVisible, int(u.id), index});
        dispatched = true;
      } else {
        dispatch_blocked = true;
      }
    }

    // Step 5: the next cycle at which anything can happen.
    uint64_t next = events.empty() ? kNever : events.top().time;
    for (Unit& u : units) {
      if (u.dma) {
        if (u.dma->requesting()) next = std::min(next, std::max(u.dma->want(), t + 1));
      } else if (t < u.free_at) {
        next = std::min(next, u.free_at);
      } else if (u.id == Module::kCompute && !u.cmdq.empty() &&
                 needs_drain(program[u.cmdq.front()]) && t < pipe.drained()) {
        next = std::min(next, pipe.drained());
      }
    }
    if (fetch.wants_burst()) next = std::min(next, std::max(fetch.want(), t + 1));
    if (dispatched) next = std::min(next, t + 1);
    if (fetch.has_head() && fetch.head_ready() > t) next = std::min(next, fetch.head_ready());

    if (next == kNever) {
      // Nothing can ever happen again and FINISH has not run: a deadlock.
      deadlock = "deadlock at cycle " + std::to_string(t) +
                 ": no unit can proceed and FINISH has not run;";
      for (Unit& u : units) {
        if (u.dma || t < u.free_at) continue;
        if (!u.cmdq.empty()) {
          const size_t index = u.cmdq.front();
          const int q = blocking_queue(program[index], u.id);
          deadlock += " " +
                      deadlock_token_wait(u.id, index, program[index],
                                          static_cast<TokenQueue>(q < 0 ? 0 : q)) +
                      ";";
        } else if (u.started < u.routed.size()) {
          const size_t index = u.routed[u.started];
          deadlock += " " + deadlock_fetch_wait(u.id, index, program[index]) + ";";
        }
      }
      if (dispatch_blocked) {
        const size_t index = fetch.head_index();
        deadlock += " " + deadlock_dispatch_blocked(index, program[index]) + ";";
      }
      deadlock.pop_back();
      throw ProgramError(isa::reg::kErrDeadlock, ProgramError::kNoInsn, deadlock);
    }

    // Account [t, next) to the state of every unit that is not executing an instruction.
    const uint64_t span = next - t;
    for (Unit& u : units) {
      if (u.dma || t < u.free_at) continue;
      Wait w;
      std::string detail;
      if (!u.cmdq.empty()) {
        const Insn& head = program[u.cmdq.front()];
        if (u.id == Module::kCompute && needs_drain(head) && t < pipe.drained()) {
          w = Wait::kDrain;
          u.cycles->stall_drain += span;
        } else {
          w = Wait::kToken;
          u.cycles->stall_token += span;
          const int q = blocking_queue(head, u.id);
          if (q >= 0) detail = std::string(" ") + queue_name(static_cast<TokenQueue>(q));
        }
      } else if (u.started < u.routed.size()) {
        w = Wait::kCmd;
        u.cycles->stall_cmd_empty += span;
      } else {
        w = Wait::kIdle;
        u.cycles->idle += span;
      }
      if (trace && (w != u.wait || detail != u.wait_detail)) {
        close_wait(u, t);
        u.wait = w;
        u.wait_since = t;
        u.wait_detail = detail;
      }
    }
    if (dispatched) {
      st.fetch.busy += span;
    } else if (fetch.all_dispatched()) {
      st.fetch.idle += span;
    } else if (dispatch_blocked) {
      st.fetch.stall_cmd_full += span;
    } else {
      st.fetch.stall_dram += span;
    }
    t = next;
    if ((++iterations & 0x3FF) == 0) {
      if (opts.port) opts.port->reached(t);
      if ((iterations & 0xFFFF) == 0) {
        if (opts.progress) opts.progress(t, completed, insn_count);
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) throw RunCancelled();
      }
    }
  }

  // FINISH ran at total - 1: account that cycle for the units not executing, then check that
  // nothing is left over.
  for (Unit& u : units) {
    if (u.dma || total - 1 < u.free_at) continue;
    (u.started < u.routed.size() ? u.cycles->stall_cmd_empty : u.cycles->idle) += 1;
    close_wait(u, total - 1);
  }
  if (fetch.all_dispatched())
    ++st.fetch.idle;
  else
    ++st.fetch.stall_dram;
  for (Unit& u : units) {
    close_wait(u, total);
    if (u.id == Module::kCompute) continue;
    if (u.dma || u.free_at > total) {
      const size_t index = u.dma ? u.dma_index : u.running_index;
      throw ProgramError(isa::reg::kErrLeftover, static_cast<int64_t>(index),
                         "FINISH ran at cycle " + std::to_string(total - 1) + " while the " +
                             isa::module_name(u.id) + " module was still executing " +
                             describe(index, program[index]) +
                             "; make FINISH wait for it with a dependency token");
    }
  }
  for (Unit& u : units) {
    if (u.started < u.routed.size()) {
      const size_t index = u.routed[u.started];
      throw work_left_at_finish(u.id, u.routed.size() - u.started, index, program[index]);
    }
  }
  for (int q = 0; q < kNumTokenQueues; ++q) {
    if (tokens[q] + in_flight[q] != 0) {
      const size_t last = last_pusher[q];
      throw tokens_left_at_finish(tokens[q] + in_flight[q], static_cast<TokenQueue>(q), last,
                                  program[last]);
    }
  }

  st.cycles = total;
  st.insn_fetch_nbytes = fetch.fetched_bytes();
  st.read_bursts = mem.read_bursts();
  st.read_beats = mem.read_beats();
  st.write_bursts = mem.write_bursts();
  st.write_beats = mem.write_beats();
  for (const ModuleCycles* m : {&st.load, &st.compute, &st.store}) {
    if (m->total() != total) {
      throw InternalError("cycle accounting: a module accounts " + std::to_string(m->total()) +
                          " of " + std::to_string(total) + " cycles");
    }
  }
  if (st.fetch.total() != total) {
    throw InternalError("cycle accounting: fetch accounts " + std::to_string(st.fetch.total()) +
                        " of " + std::to_string(total) + " cycles");
  }
  if (opts.progress) opts.progress(total, completed, insn_count);
  return st;
}

}  // namespace weft::sim::cycle
