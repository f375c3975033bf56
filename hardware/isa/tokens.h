// The four dependency-token queues of DESIGN.md §3: which queue an instruction's pop/push flag
// names, given the module it runs on, and which queue carries tokens from one module to
// another. Part of the contract, shared by the simulators, the stream builder and the token
// verifier.
#pragma once

#include <array>
#include <optional>

#include "hardware/isa/insn.h"

namespace weft::isa {

/// The four 1-bit token queues, in the order reports list them.
enum class TokenQueue : int {
  kLoadToCompute = 0,   // RAW: load sets push_next_dep, compute pops with pop_prev_dep
  kComputeToLoad = 1,   // WAR: compute sets push_prev_dep, load pops with pop_next_dep
  kComputeToStore = 2,  // RAW: compute sets push_next_dep, store pops with pop_prev_dep
  kStoreToCompute = 3,  // WAR: store sets push_prev_dep, compute pops with pop_next_dep
};
inline constexpr int kNumTokenQueues = 4;

/// All queues, in enumeration order.
inline constexpr std::array<TokenQueue, kNumTokenQueues> kAllTokenQueues = {
    TokenQueue::kLoadToCompute, TokenQueue::kComputeToLoad, TokenQueue::kComputeToStore,
    TokenQueue::kStoreToCompute};

/// "load->compute", "compute->load", "compute->store", "store->compute".
const char* queue_name(TokenQueue q);

/// The queue that carries tokens from `from` to `to`; empty unless they are neighbours
/// (load<->compute, compute<->store).
std::optional<TokenQueue> queue_between(Module from, Module to);

/// The queue a `pop_prev_dep` (prev = true) or `pop_next_dep` flag of module `m` pops; empty
/// when `m` has no neighbour on that side (load has no prev, store no next).
std::optional<TokenQueue> pop_queue(Module m, bool prev);
/// The queue a `push_prev_dep` (prev = true) or `push_next_dep` flag of module `m` pushes.
std::optional<TokenQueue> push_queue(Module m, bool prev);

/// Whether module `m` has a previous (prev = true) or next neighbour.
bool has_neighbour(Module m, bool prev);

/// The module that pushes onto `q` and the module that pops it.
Module producer(TokenQueue q);
Module consumer(TokenQueue q);

}  // namespace weft::isa
