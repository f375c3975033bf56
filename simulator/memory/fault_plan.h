// Fault injection for the AXI memory model (docs/reliability.md): a plan of error responses
// (SLVERR, DECERR) and of bursts that are never answered, on chosen addresses or chosen bursts
// of the read or the write channel. AxiMemory applies a plan when one is set; the engines that
// share it (the cycle model and the RTL testbench) then stop with a BusFault that names the
// requesting module, the instruction, the burst, the address and the fault. With no plan (the
// default) nothing changes and it costs one branch per burst.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "simulator/common/program_error.h"

namespace weft::sim {

/// The two AXI channels a fault can hit.
enum class AxiChannel { kRead, kWrite };

/// What happens to a burst that a fault hits.
enum class AxiFaultKind {
  kSlvErr,      // the slave answers SLVERR (RRESP/BRESP 0b10)
  kDecErr,      // the interconnect answers DECERR (0b11): no slave at that address
  kNoResponse,  // the burst is accepted and never answered
};

/// One fault: the bursts it hits on its channel.
struct AxiFault {
  AxiChannel channel = AxiChannel::kRead;
  AxiFaultKind kind = AxiFaultKind::kSlvErr;
  /// Hits a burst whose bytes overlap [addr_lo, addr_hi) (device byte addresses).
  uint64_t addr_lo = 0, addr_hi = std::numeric_limits<uint64_t>::max();
  /// When >= 0, hits only the burst-th burst of the run on its channel (0 = the first).
  int64_t burst = -1;
};

/// The faults of one run.
struct FaultPlan {
  std::vector<AxiFault> faults;
  /// Cycles the memory system waits for an answer before it reports a burst as unanswered.
  uint64_t response_timeout = 10000;
  bool empty() const { return faults.empty(); }
};

/// Parses a plan: comma-separated faults "CHANNEL:KIND[@LO[-HI]][#N]", CHANNEL read|write,
/// KIND slverr|decerr|noresp, LO/HI byte addresses (decimal or 0x hex; HI exclusive, default
/// LO + 1), N the burst number; e.g. "read:slverr@0x1000", "write:decerr#0", "read:noresp#2".
/// UserError naming the bad part.
FaultPlan parse_fault_plan(const std::string& spec);

/// Who issued a burst, for the message of a fault that hits it.
struct BurstSource {
  const char* module = nullptr;  // "load", "compute", "store", "fetch"; nullptr: unknown
  int64_t insn = -1;             // program index of the instruction, or -1
  uint64_t addr = 0;             // first byte address of the burst
};

/// The error an injected fault ends a run with (error register: kErrInternal, as for any stop
/// that is not a program error). Its message names the module, the instruction, the burst,
/// the address, the response and the cycle.
class BusFault : public ProgramError {
 public:
  BusFault(int64_t insn, const std::string& what)
      : ProgramError(isa::reg::kErrInternal, insn, what) {}
};

}  // namespace weft::sim
