// Test support: a static checker of a program's dependency-token protocol, written from
// DESIGN.md §3 alone. It matches the k-th pop of each queue with the k-th push, derives the
// happens-before order this gives (an instruction completes before the instruction that pops
// its token starts; each module runs in order), and reports every data race (two modules
// touching one on-chip element or DRAM byte, one of them writing, with no order between
// them), every read of on-chip data the program did not write first, out-of-range indices,
// unbalanced queues, a pop whose push lies later in program order (which can deadlock fetch),
// and instructions that FINISH does not wait for. It also bounds each queue's occupancy over
// all interleavings. Micro-ops are read from the image as given (stores into micro-op data are
// not followed).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/program_builder.h"

namespace weft::test {

/// What check_protocol found.
struct ProtocolReport {
  /// One line per problem (at most a few dozen); empty for a race-free, balanced program.
  std::vector<std::string> problems;
  /// Per queue (load->compute, compute->load, compute->store, store->compute): the most tokens
  /// it can hold under any timing.
  std::array<int64_t, 4> max_tokens{};
  bool ok() const { return problems.empty(); }
};

/// Checks the token protocol and data races of a built program.
ProtocolReport check_protocol(const Program& p);

}  // namespace weft::test
