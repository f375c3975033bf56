// The static token verifier; see token_verifier.h.
//
// Why "every pop is matched by an EARLIER push" rules out deadlock. A timed engine fetches
// instructions in program order and dispatches each into a bounded command queue of its
// module; each module starts its instructions in order, pops before an instruction starts and
// pushes when it completes; a push never waits (a full token queue is an error, excluded by
// the occupancy bound below). Suppose a run stalls forever and let i be the first instruction,
// in program order, that never completes. Every instruction before i completes, so each was
// dispatched and has left its command queue: fetch reaches i and finds room for it, and i
// becomes the oldest instruction of its module. Let i pop the k-th token of queue q. The pops
// before it on q belong to earlier instructions of the same module (one module consumes each
// queue), which all completed: exactly k-1 tokens were taken. Its match, the k-th push, is by
// an instruction j < i, and the pushes before it on q are by instructions of j's module before
// j; all of them completed, so at least k tokens were pushed and one is waiting for i. Compute
// LOADs and FINISH also wait for earlier GEMM/ALU to drain, which complete. So i starts, and an
// instruction that starts completes: a contradiction. Without the rule, fetch can block on a
// full command queue in front of an instruction that waits for a token which only a later,
// never-fetched instruction would push.
//
// Ordering facts used below (S = start, E = completion): within a module S and E are each in
// program order (a compute GEMM/ALU may start before the previous one completes, so nothing
// more is assumed there); a matched push/pop gives E(pusher) < S(popper). For each instruction
// we keep, per module m, how many of m's first instructions surely completed before it starts
// (a vector clock): the clock of the module's previous instruction, joined with the clock of
// each token's pusher plus the pusher itself (its completion implies its module's earlier
// ones). The checks below only ask a clock about another module's instructions, never about
// the instruction's own module (where the GEMM/ALU overlap would matter).
#include "runtime/stream/token_verifier.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::rt {

using isa::consumer;
using isa::kAllTokenQueues;
using isa::kNumTokenQueues;
using isa::pop_queue;
using isa::producer;
using isa::push_queue;
using isa::queue_between;
using isa::queue_name;
using isa::TokenQueue;

namespace {

using isa::Insn;
using isa::Module;
using isa::Opcode;
using Clock = std::array<int64_t, 3>;

constexpr size_t kMaxErrors = 32;

int qi(TokenQueue q) { return static_cast<int>(q); }
int mi(Module m) { return static_cast<int>(m); }

class Verifier {
 public:
  Verifier(const isa::Layout& l, const std::vector<Insn>& p) : l_(l), p_(p) {}
  VerifyReport run();

 private:
  void error(const std::string& s) {
    if (report_.errors.size() < kMaxErrors) report_.errors.push_back(s);
  }
  std::string at(size_t i, TokenQueue q) const {
    return describe_insn(i, p_[i]) + ", queue " + queue_name(q);
  }
  // Whether instruction a surely completed before instruction b (of another module) starts.
  bool completes_before(size_t a, size_t b) const { return clock_[b][mi(mod_[a])] > pos_[a]; }
  void structure();
  void match();
  void balance();
  void occupancy();
  void finish_order();

  const isa::Layout& l_;
  const std::vector<Insn>& p_;
  VerifyReport report_;
  std::vector<Module> mod_;
  std::vector<int64_t> pos_;  // index within its module
  std::array<std::vector<size_t>, kNumTokenQueues> pushes_, pops_;
  std::vector<Clock> clock_;  // clock_[i][m]: m's first instructions surely done at S(i)
};

// Opcodes, FINISH placement and dependency flags; fills pushes_/pops_ per queue.
void Verifier::structure() {
  std::array<int64_t, 3> count{};
  for (size_t i = 0; i < p_.size(); ++i) {
    const Insn& in = p_[i];
    if (l_.format_of(in.opcode) == nullptr) {
      error(describe_insn(i, in) + ": unknown opcode " + std::to_string(in.opcode));
    }
    mod_.push_back(isa::route(in));
    pos_.push_back(count[mi(mod_.back())]++);
    if (in.op() == Opcode::kFinish && i + 1 != p_.size()) {
      error(describe_insn(i, in) + ": FINISH must be the last instruction, but " +
            std::to_string(p_.size() - i - 1) + " instruction(s) follow it");
    }
    struct Flag {
      const char* name;
      int64_t value;
      bool pop, prev;
    };
    for (const Flag& f : {Flag{"pop_prev_dep", in.pop_prev_dep, true, true},
                          Flag{"pop_next_dep", in.pop_next_dep, true, false},
                          Flag{"push_prev_dep", in.push_prev_dep, false, true},
                          Flag{"push_next_dep", in.push_next_dep, false, false}}) {
      if (f.value == 0) continue;
      const Module m = mod_.back();
      const std::optional<TokenQueue> q = f.pop ? pop_queue(m, f.prev) : push_queue(m, f.prev);
      if (!q) {
        error(describe_insn(i, in) + ": sets " + f.name + ", but the " + isa::module_name(m) +
              " module has no " + (f.prev ? "previous" : "next") +
              " module to exchange tokens with");
        continue;
      }
      if (!f.pop && in.op() == Opcode::kFinish) {
        error(at(i, *q) + ": FINISH sets " + f.name +
              ", a token nothing can pop after the run ends");
        continue;
      }
      (f.pop ? pops_ : pushes_)[qi(*q)].push_back(i);
    }
  }
  if (p_.back().op() != Opcode::kFinish) {
    error(describe_insn(p_.size() - 1, p_.back()) +
          ": the last instruction is not FINISH; the accelerator would never signal done");
  }
}

// Matches the k-th pop of each queue with its k-th push and builds the vector clocks.
void Verifier::match() {
  const size_t n = p_.size();
  clock_.assign(n, Clock{0, 0, 0});
  std::array<size_t, kNumTokenQueues> next_pop{};
  std::array<int64_t, 3> last{-1, -1, -1};
  for (size_t i = 0; i < n; ++i) {
    const int m = mi(mod_[i]);
    // Whatever completed before the previous instruction of the module started also
    // completed before this one starts (starts are in order).
    Clock c = last[m] >= 0 ? clock_[static_cast<size_t>(last[m])] : Clock{0, 0, 0};
    for (TokenQueue q : kAllTokenQueues) {
      const auto& pops = pops_[qi(q)];
      size_t& k = next_pop[qi(q)];
      if (k >= pops.size() || pops[k] != i) continue;
      const auto& pushes = pushes_[qi(q)];
      if (k >= pushes.size()) {
        error(at(i, q) + ": pops token " + std::to_string(k + 1) + ", but the program pushes " +
              "only " + std::to_string(pushes.size()) + " on this queue (the " +
              isa::module_name(consumer(q)) + " module would wait forever)");
      } else if (pushes[k] > i) {
        error(at(i, q) + ": pops token " + std::to_string(k + 1) + ", which " +
              describe_insn(pushes[k], p_[pushes[k]]) +
              " pushes later in program order; with in-order fetch and bounded command queues "
              "this can deadlock");
      } else {
        const size_t j = pushes[k];
        for (int x = 0; x < 3; ++x) c[x] = std::max(c[x], clock_[j][x]);
        c[mi(mod_[j])] = std::max(c[mi(mod_[j])], pos_[j] + 1);
      }
      ++k;
    }
    clock_[i] = c;
    last[m] = static_cast<int64_t>(i);
  }
}

void Verifier::balance() {
  for (TokenQueue q : kAllTokenQueues) {
    const auto& pushes = pushes_[qi(q)];
    const auto& pops = pops_[qi(q)];
    report_.pushes[qi(q)] = static_cast<int64_t>(pushes.size());
    if (pushes.size() > pops.size()) {
      const size_t first = pushes[pops.size()];
      error(at(first, q) + ": its token (token " + std::to_string(pops.size() + 1) + " of " +
            std::to_string(pushes.size()) + " pushed) is never popped; " +
            std::to_string(pushes.size() - pops.size()) + " token(s) would be left at FINISH");
    }
  }
}

// When push k happens, the pops surely done are those whose instruction completed before the
// pushing instruction started (a pop happens when its instruction starts, a push when its
// instruction completes, so this under-counts pops). Pops are made in order by one module and
// the clocks only grow along the pushing module, so those pops form a growing prefix.
void Verifier::occupancy() {
  const int64_t depth = l_.config.token_queue_depth;
  for (TokenQueue q : kAllTokenQueues) {
    const auto& pushes = pushes_[qi(q)];
    const auto& pops = pops_[qi(q)];
    int64_t most = 0;
    size_t before = 0;
    bool reported = false;
    for (size_t k = 0; k < pushes.size(); ++k) {
      while (before < pops.size() && completes_before(pops[before], pushes[k])) ++before;
      const int64_t held = static_cast<int64_t>(k + 1) - static_cast<int64_t>(before);
      most = std::max(most, held);
      if (held > depth && !reported) {
        reported = true;
        error(at(pushes[k], q) + ": pushes token " + std::to_string(k + 1) + " while up to " +
              std::to_string(held - 1) + " earlier token(s) may still be waiting; the queue " +
              "holds " + std::to_string(depth) + " (token_queue_depth of " + l_.config.name +
              "), so it can overflow");
      }
    }
    report_.max_tokens[qi(q)] = most;
  }
}

// FINISH must start only after every load and store instruction completed.
void Verifier::finish_order() {
  const size_t f = p_.size() - 1;
  if (p_[f].op() != Opcode::kFinish) return;
  std::array<int64_t, 3> last{-1, -1, -1};
  for (size_t i = 0; i < f; ++i) last[mi(mod_[i])] = static_cast<int64_t>(i);
  if (last[mi(Module::kStore)] >= 0) {
    const size_t s = static_cast<size_t>(last[mi(Module::kStore)]);
    const auto& pops = pops_[qi(TokenQueue::kStoreToCompute)];
    const auto& pushes = pushes_[qi(TokenQueue::kStoreToCompute)];
    const size_t k = pops.empty() ? 0 : pops.size() - 1;
    if (!p_[f].pop_next_dep) {
      error(at(f, TokenQueue::kStoreToCompute) +
            ": the program stores, so FINISH must pop the token of the last store-module "
            "instruction, " +
            describe_insn(s, p_[s]) + " (set pop_next_dep)");
      return;
    }
    if (!pops.empty() && pops.back() == f && k < pushes.size() && pushes[k] != s) {
      error(at(f, TokenQueue::kStoreToCompute) + ": FINISH pops token " + std::to_string(k + 1) +
            ", which does not come from the last store-module instruction, " +
            describe_insn(s, p_[s]) + " (that instruction must set push_prev_dep)");
      return;
    }
  }
  for (Module m : {Module::kLoad, Module::kStore}) {
    if (last[mi(m)] < 0) continue;
    const size_t x = static_cast<size_t>(last[mi(m)]);
    if (!completes_before(x, f)) {
      error(describe_insn(f, p_[f]) + ": FINISH may run before " + describe_insn(x, p_[x]) +
            " completes: no chain of tokens makes FINISH wait for the " + isa::module_name(m) +
            " module (push from its last instruction and pop it before FINISH)");
    }
  }
}

VerifyReport Verifier::run() {
  if (p_.empty()) {
    error("the program is empty: it needs at least FINISH");
    return report_;
  }
  structure();
  match();
  balance();
  occupancy();
  finish_order();
  return report_;
}

}  // namespace

std::string describe_insn(size_t index, const Insn& insn) {
  std::string s = "instruction " + std::to_string(index) + " (";
  const char* op = isa::opcode_name(insn.opcode);
  s += op ? op : "opcode " + std::to_string(insn.opcode);
  if (insn.op() == Opcode::kLoad || insn.op() == Opcode::kStore) {
    const char* m = isa::mem_type_name(insn.memory_type);
    s += std::string(" ") + (m ? m : "?");
  } else if (insn.op() == Opcode::kAlu) {
    const char* a = isa::alu_op_name(insn.alu_opcode);
    s += std::string(" ") + (a ? a : "?");
  }
  return s + ")";
}

VerifyReport verify_tokens(const isa::Layout& layout, const std::vector<Insn>& program) {
  return Verifier(layout, program).run();
}

VerifyReport verify_tokens_or_throw(const isa::Layout& layout, const std::vector<Insn>& program) {
  VerifyReport r = verify_tokens(layout, program);
  if (!r.ok()) {
    std::string msg = "token check failed: " + r.errors.front();
    if (r.errors.size() > 1) {
      msg += " (and " + std::to_string(r.errors.size() - 1) + " more problem" +
             (r.errors.size() > 2 ? "s" : "") + ")";
    }
    throw UserError(msg);
  }
  return r;
}

}  // namespace weft::rt
