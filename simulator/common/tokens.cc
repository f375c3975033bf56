// Token queue naming and the module -> queue wiring of DESIGN.md §3.
#include "simulator/common/tokens.h"

#include "hardware/isa/errors.h"

namespace weft::sim {

using isa::Module;

const char* queue_name(TokenQueue q) {
  switch (q) {
    case TokenQueue::kLoadToCompute: return "load->compute";
    case TokenQueue::kComputeToLoad: return "compute->load";
    case TokenQueue::kComputeToStore: return "compute->store";
    case TokenQueue::kStoreToCompute: return "store->compute";
  }
  return "?";
}

bool has_neighbour(Module m, bool prev) {
  return m == Module::kCompute || (m == Module::kLoad && !prev) || (m == Module::kStore && prev);
}

TokenQueue pop_queue(Module m, bool prev) {
  if (!has_neighbour(m, prev)) throw InternalError("pop_queue: module has no such neighbour");
  if (m == Module::kLoad) return TokenQueue::kComputeToLoad;
  if (m == Module::kStore) return TokenQueue::kComputeToStore;
  return prev ? TokenQueue::kLoadToCompute : TokenQueue::kStoreToCompute;
}

TokenQueue push_queue(Module m, bool prev) {
  if (!has_neighbour(m, prev)) throw InternalError("push_queue: module has no such neighbour");
  if (m == Module::kLoad) return TokenQueue::kLoadToCompute;
  if (m == Module::kStore) return TokenQueue::kStoreToCompute;
  return prev ? TokenQueue::kComputeToLoad : TokenQueue::kComputeToStore;
}

int blocking_queue(const isa::Insn& insn, isa::Module m,
                   const std::array<int64_t, kNumTokenQueues>& counts) {
  if (insn.pop_prev_dep && counts[int(pop_queue(m, true))] == 0) return int(pop_queue(m, true));
  if (insn.pop_next_dep && counts[int(pop_queue(m, false))] == 0) return int(pop_queue(m, false));
  return -1;
}

}  // namespace weft::sim
