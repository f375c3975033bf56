// The error every engine throws for a bad program or a run that cannot finish: a UserError
// that also carries the error-register bit (hardware/isa/registers.h) and the instruction, so
// that the driver reports simulator and hardware failures the same way. The messages that
// several engines raise are built here once, so that every engine words them identically.
#pragma once

#include <cstdint>
#include <string>

#include "hardware/isa/errors.h"
#include "hardware/isa/insn.h"
#include "hardware/isa/registers.h"
#include "simulator/common/tokens.h"

namespace weft::sim {

/// A program error with its error-register bit.
class ProgramError : public UserError {
 public:
  static constexpr int64_t kNoInsn = -1;
  ProgramError(isa::reg::ErrorBit bit, int64_t insn, const std::string& what)
      : UserError(what), bit_(bit), insn_(insn) {}
  /// The error-register bit of this error.
  isa::reg::ErrorBit bit() const { return bit_; }
  /// The instruction it concerns, or kNoInsn.
  int64_t insn() const { return insn_; }

 private:
  isa::reg::ErrorBit bit_;
  int64_t insn_;
};

/// A run stopped from outside (a timeout); not a program error.
class RunCancelled : public UserError {
 public:
  RunCancelled() : UserError("the run was cancelled before it finished") {}
};

/// Instruction `index` pushes onto queue `q`, which already holds `depth` tokens.
ProgramError token_overflow(size_t index, const isa::Insn& insn, TokenQueue q, int64_t depth);
/// Micro-op `k` of instruction `index` at loop iteration (i, j) computes `field` = `value`,
/// beyond `buffer`'s `depth`.
ProgramError uop_index_out_of_range(size_t index, const isa::Insn& insn, int64_t k, int64_t i,
                                    int64_t j, const char* field, int64_t value, const char* buffer,
                                    int64_t depth);
/// FINISH ran while module `m` had `remaining` instructions, the next being `index`.
ProgramError work_left_at_finish(isa::Module m, size_t remaining, size_t index,
                                 const isa::Insn& insn);
/// FINISH ran with `count` tokens on queue `q`, the last pushed by instruction `index`.
ProgramError tokens_left_at_finish(int64_t count, TokenQueue q, size_t index,
                                   const isa::Insn& insn);

// The clauses of a deadlock message, one per waiting module (the functional and cycle models
// and the RTL harness's watchdog join them with "; " after their own opening).

/// "the <m> module waits at <insn> for a token on the <q> queue, which is empty".
std::string deadlock_token_wait(isa::Module m, size_t index, const isa::Insn& insn, TokenQueue q);
/// "the <m> module waits for <insn> from fetch" (its command queue is empty).
std::string deadlock_fetch_wait(isa::Module m, size_t index, const isa::Insn& insn);
/// "fetch cannot dispatch <insn>: the <module> command queue is full".
std::string deadlock_dispatch_blocked(size_t index, const isa::Insn& insn);

}  // namespace weft::sim
