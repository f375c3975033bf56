// The functional model's scheduler: routes instructions to the three modules and runs them
// in order, honouring the token queues; see functional_sim.h.
#include "simulator/functional/functional_sim.h"

#include <array>
#include <string>

#include "hardware/isa/errors.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"
#include "simulator/common/tokens.h"
#include "simulator/functional/datapath.h"

namespace weft::sim {

using isa::Insn;
using isa::Module;
using isa::Opcode;

namespace {

constexpr std::array<Module, 3> kModules = {Module::kLoad, Module::kCompute, Module::kStore};

struct Tokens {
  std::array<int64_t, kNumTokenQueues> count{};
  std::array<int64_t, kNumTokenQueues> last_pusher{};  // for the leftover message
  int64_t depth = 0;

  // The queue an instruction is blocked on, or -1 when all its pops are available.
  int blocking_queue(const Insn& insn, Module m) const {
    return sim::blocking_queue(insn, m, count);
  }
  void pop(const Insn& insn, Module m) {
    if (insn.pop_prev_dep) --count[int(pop_queue_of(m, true))];
    if (insn.pop_next_dep) --count[int(pop_queue_of(m, false))];
  }
  void push(const Insn& insn, Module m, size_t index) {
    for (bool prev : {true, false}) {
      if (!(prev ? insn.push_prev_dep : insn.push_next_dep)) continue;
      const TokenQueue q = push_queue_of(m, prev);
      if (count[int(q)] == depth) throw token_overflow(index, insn, q, depth);
      ++count[int(q)];
      last_pusher[int(q)] = static_cast<int64_t>(index);
    }
  }
};

struct ModuleQueue {
  std::vector<size_t> insns;  // program indices, in order
  size_t next = 0;
  bool done() const { return next == insns.size(); }
};

}  // namespace

FunctionalSim::FunctionalSim(const isa::Layout& layout) : l_(layout), buf_(layout) {}

VtaCounters FunctionalSim::run(std::vector<uint8_t>& dram, uint64_t insn_offset,
                               uint64_t insn_count, const std::atomic<bool>* cancel,
                               const std::function<void(uint64_t, uint64_t)>& progress) {
  const std::vector<Insn> program = fetch_program(l_, dram, insn_offset, insn_count);
  std::array<ModuleQueue, 3> mq;
  for (size_t i = 0; i < program.size(); ++i) mq[int(isa::route(program[i]))].insns.push_back(i);

  VtaCounters c;
  Tokens tokens;
  tokens.depth = l_.config.token_queue_depth;

  auto execute = [&](Module m) {
    const size_t index = mq[int(m)].insns[mq[int(m)].next];
    const Insn& insn = program[index];
    tokens.pop(insn, m);
    switch (insn.op()) {
      case Opcode::kLoad:
        exec_load(l_, insn, dram, buf_, c);
        break;
      case Opcode::kStore:
        exec_store(l_, insn, dram, buf_, c);
        break;
      case Opcode::kGemm:
        exec_gemm(l_, insn, index, buf_, c, cancel);
        break;
      case Opcode::kAlu:
        exec_alu(l_, insn, index, buf_, c, cancel);
        break;
      case Opcode::kFinish:
        break;
    }
    tokens.push(insn, m, index);
    ++c.insn_count;
    ++mq[int(m)].next;
    // Often enough for a live display (one GEMM instruction can be long), rare enough to cost
    // nothing; the listener limits its own rate.
    if (progress && (c.insn_count & 15) == 0) progress(c.insn_count, program.size());
  };
  auto ready = [&](Module m) {
    const ModuleQueue& q = mq[int(m)];
    if (q.done()) return false;
    const Insn& insn = program[q.insns[q.next]];
    return tokens.blocking_queue(insn, m) < 0;
  };
  auto at_finish = [&]() {
    const ModuleQueue& q = mq[int(Module::kCompute)];
    return !q.done() && program[q.insns[q.next]].op() == Opcode::kFinish;
  };

  // FINISH is deferred until nothing else can run, so that everything a correct program
  // orders before it has happened; fetch_program guarantees it is the last instruction.
  bool finished = false;
  while (!finished) {
    bool progress = false;
    for (Module m : kModules) {
      while (ready(m) && !(m == Module::kCompute && at_finish())) {
        execute(m);
        progress = true;
      }
    }
    if (progress) continue;
    if (at_finish() && ready(Module::kCompute)) {
      execute(Module::kCompute);
      finished = true;
      break;
    }
    std::string why = "deadlock: no module can proceed and FINISH has not run;";
    for (Module m : kModules) {
      const ModuleQueue& q = mq[int(m)];
      if (q.done()) continue;
      const size_t index = q.insns[q.next];
      const int blocked = tokens.blocking_queue(program[index], m);
      why += " " + deadlock_token_wait(m, index, program[index], static_cast<TokenQueue>(blocked)) +
             ";";
    }
    why.pop_back();
    throw ProgramError(isa::reg::kErrDeadlock, ProgramError::kNoInsn, why);
  }

  for (Module m : kModules) {
    const ModuleQueue& q = mq[int(m)];
    if (q.done()) continue;
    const size_t index = q.insns[q.next];
    throw work_left_at_finish(m, q.insns.size() - q.next, index, program[index]);
  }
  for (int q = 0; q < kNumTokenQueues; ++q) {
    if (tokens.count[q] != 0) {
      const size_t last = static_cast<size_t>(tokens.last_pusher[q]);
      throw tokens_left_at_finish(tokens.count[q], static_cast<TokenQueue>(q), last, program[last]);
    }
  }
  return c;
}

}  // namespace weft::sim
