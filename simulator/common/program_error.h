// The error every engine throws for a bad program or a run that cannot finish: a UserError
// that also carries the error-register bit (hardware/isa/registers.h) and the instruction, so
// that the driver reports simulator and hardware failures the same way.
#pragma once

#include <cstdint>
#include <string>

#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::sim {

/// A program error with its error-register bit.
class ProgramError : public UserError {
 public:
  static constexpr int64_t kNoInsn = -1;
  ProgramError(isa::reg::ErrorBit bit, int64_t insn, const std::string& what)
      : UserError(what), bit_(bit), insn_(insn) {}
  isa::reg::ErrorBit bit() const { return bit_; }
  int64_t insn() const { return insn_; }

 private:
  isa::reg::ErrorBit bit_;
  int64_t insn_;
};

}  // namespace weft::sim
