// The shared wording of program errors; see program_error.h.
#include "simulator/common/program_error.h"

#include "simulator/common/program.h"

namespace weft::sim {

ProgramError token_overflow(size_t index, const isa::Insn& insn, TokenQueue q, int64_t depth) {
  const bool to_compute = q == TokenQueue::kLoadToCompute || q == TokenQueue::kStoreToCompute;
  const char* consumer =
      to_compute ? "compute" : (q == TokenQueue::kComputeToLoad ? "load" : "store");
  return ProgramError(isa::reg::kErrTokenOverflow, static_cast<int64_t>(index),
                      describe(index, insn) + ": token queue " + queue_name(q) +
                          " overflows: it already holds " + std::to_string(depth) +
                          " tokens (its depth) that the " + consumer + " module has not popped");
}

ProgramError uop_index_out_of_range(size_t index, const isa::Insn& insn, int64_t k, int64_t i,
                                    int64_t j, const char* field, int64_t value, const char* buffer,
                                    int64_t depth) {
  return ProgramError(isa::reg::kErrSramRange, static_cast<int64_t>(index),
                      describe(index, insn) + ": micro-op " + std::to_string(k) +
                          " at iteration (" + std::to_string(i) + ", " + std::to_string(j) +
                          ") computes " + field + " index " + std::to_string(value) +
                          ", beyond the " + buffer + " buffer depth " + std::to_string(depth));
}

ProgramError work_left_at_finish(isa::Module m, size_t remaining, size_t index,
                                 const isa::Insn& insn) {
  return ProgramError(isa::reg::kErrLeftover, static_cast<int64_t>(index),
                      "FINISH ran while the " + std::string(isa::module_name(m)) +
                          " module still had " + std::to_string(remaining) +
                          " instruction(s) to run, from " + describe(index, insn) +
                          "; make FINISH wait for them with a dependency token");
}

ProgramError tokens_left_at_finish(int64_t count, TokenQueue q, size_t index,
                                   const isa::Insn& insn) {
  return ProgramError(isa::reg::kErrLeftover, static_cast<int64_t>(index),
                      "tokens left over at FINISH: " + std::to_string(count) +
                          " token(s) pushed on the " + queue_name(q) +
                          " queue were never popped (the last pushed by " + describe(index, insn) +
                          ")");
}

std::string deadlock_token_wait(isa::Module m, size_t index, const isa::Insn& insn, TokenQueue q) {
  return std::string("the ") + isa::module_name(m) + " module waits at " + describe(index, insn) +
         " for a token on the " + queue_name(q) + " queue, which is empty";
}

std::string deadlock_fetch_wait(isa::Module m, size_t index, const isa::Insn& insn) {
  return std::string("the ") + isa::module_name(m) + " module waits for " + describe(index, insn) +
         " from fetch";
}

std::string deadlock_dispatch_blocked(size_t index, const isa::Insn& insn) {
  return "fetch cannot dispatch " + describe(index, insn) + ": the " +
         isa::module_name(isa::route(insn)) + " command queue is full";
}

}  // namespace weft::sim
