// The four dependency-token queues between the load, compute and store modules, shared by
// every simulator so that they name queues and report overflow the same way.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hardware/isa/insn.h"

namespace weft::sim {

/// The four 1-bit token queues of DESIGN.md §3.
enum class TokenQueue : int {
  kLoadToCompute = 0,   // RAW: load pushes next, compute pops prev
  kComputeToLoad = 1,   // WAR: compute pushes prev, load pops next
  kComputeToStore = 2,  // RAW: compute pushes next, store pops prev
  kStoreToCompute = 3,  // WAR: store pushes prev, compute pops next
};
inline constexpr int kNumTokenQueues = 4;

/// "load->compute" and so on.
const char* queue_name(TokenQueue q);

/// The queue an instruction of `m` pops when it sets pop_prev_dep (prev=true) or
/// pop_next_dep; throws InternalError for a module without that neighbour.
TokenQueue pop_queue(isa::Module m, bool prev);
/// The queue an instruction of `m` pushes when it sets push_prev_dep or push_next_dep.
TokenQueue push_queue(isa::Module m, bool prev);
/// Whether module `m` has a previous (prev=true) or next neighbour.
bool has_neighbour(isa::Module m, bool prev);

/// The queue an instruction of `m` waits on given the visible token counts, or -1 when every
/// token it pops is there.
int blocking_queue(const isa::Insn& insn, isa::Module m,
                   const std::array<int64_t, kNumTokenQueues>& counts);

}  // namespace weft::sim
