// The token queues as the simulators use them: the contract's wiring (hardware/isa/tokens.h)
// with non-optional lookups for flags that validation has already checked, and the rule that
// decides whether an instruction can pop its tokens.
#pragma once

#include <array>
#include <cstdint>

#include "hardware/isa/insn.h"
#include "hardware/isa/tokens.h"

namespace weft::sim {

using isa::has_neighbour;
using isa::kNumTokenQueues;
using isa::queue_name;
using isa::TokenQueue;

/// The queue a pop_prev_dep (prev = true) or pop_next_dep flag of module `m` pops; throws
/// InternalError for a flag the module cannot have (validation rejects those first).
TokenQueue pop_queue_of(isa::Module m, bool prev);
/// The queue a push_prev_dep or push_next_dep flag of module `m` pushes.
TokenQueue push_queue_of(isa::Module m, bool prev);

/// The queue an instruction of `m` waits on given the visible token counts, or -1 when every
/// token it pops is there.
int blocking_queue(const isa::Insn& insn, isa::Module m,
                   const std::array<int64_t, kNumTokenQueues>& counts);

}  // namespace weft::sim
