// A static check of a program's dependency tokens, run before the program goes to a device.
// It proves, without running anything, that the program cannot deadlock on any engine that
// fetches in program order into bounded command queues (the cycle model, the RTL, an FPGA),
// that it leaves no token behind at FINISH, that FINISH waits for every module, and that no
// token queue can overflow under any interleaving. See token_verifier.cc for the argument.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/insn.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/tokens.h"

namespace weft::rt {

/// What verify_tokens found.
struct VerifyReport {
  /// One line per problem, each naming the instruction index and the queue; at most a few
  /// dozen. Empty for a program that passes.
  std::vector<std::string> errors;
  /// Per queue (isa::TokenQueue order): the most tokens it can hold under any timing.
  std::array<int64_t, isa::kNumTokenQueues> max_tokens{};
  /// Per queue: the tokens pushed over the whole program.
  std::array<int64_t, isa::kNumTokenQueues> pushes{};

  bool ok() const { return errors.empty(); }
  /// The worst-case occupancy of one queue.
  int64_t max_tokens_of(isa::TokenQueue q) const { return max_tokens[static_cast<int>(q)]; }
};

/// "instruction 5 (LOAD INP)", "instruction 9 (ALU SHR)": how the runtime names an instruction.
std::string describe_insn(size_t index, const isa::Insn& insn);

/// Checks, for the layout's token_queue_depth:
///  - every dependency flag is one its module can honour, and FINISH pushes nothing;
///  - per queue, the k-th pop is matched by the k-th push (FIFO), which must exist and come
///    EARLIER in program order;
///  - every queue is balanced (as many pops as pushes);
///  - FINISH is the last instruction and the only one; when the program has store-module
///    instructions FINISH pops the token pushed by the last of them; and every load and store
///    instruction is ordered before FINISH by tokens;
///  - the worst-case occupancy of each queue is at most token_queue_depth.
VerifyReport verify_tokens(const isa::Layout& layout, const std::vector<isa::Insn>& program);

/// verify_tokens, then throws UserError with the first problem (and how many more there are)
/// when the program fails. Returns the report of a passing program.
VerifyReport verify_tokens_or_throw(const isa::Layout& layout,
                                    const std::vector<isa::Insn>& program);

}  // namespace weft::rt
