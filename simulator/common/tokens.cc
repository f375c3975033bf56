// Non-optional queue lookups and the pop rule; see tokens.h.
#include "simulator/common/tokens.h"

#include "hardware/isa/errors.h"

namespace weft::sim {

TokenQueue pop_queue_of(isa::Module m, bool prev) {
  const auto q = isa::pop_queue(m, prev);
  if (!q) throw InternalError("pop_queue_of: module has no such neighbour");
  return *q;
}

TokenQueue push_queue_of(isa::Module m, bool prev) {
  const auto q = isa::push_queue(m, prev);
  if (!q) throw InternalError("push_queue_of: module has no such neighbour");
  return *q;
}

int blocking_queue(const isa::Insn& insn, isa::Module m,
                   const std::array<int64_t, kNumTokenQueues>& counts) {
  if (insn.pop_prev_dep && counts[int(pop_queue_of(m, true))] == 0)
    return int(pop_queue_of(m, true));
  if (insn.pop_next_dep && counts[int(pop_queue_of(m, false))] == 0) {
    return int(pop_queue_of(m, false));
  }
  return -1;
}

}  // namespace weft::sim
