// The LLVM CPU backend's search spaces (issue #14): dense and conv2d schedules as traces of
// categorical decisions over the knobs of runtime/cpu's DenseSchedule and ConvSchedule. The
// space knows the host's vector width (lanes of a 32-bit vector, vector registers) and
// rejects, as an invalid candidate with its reason, a register tile that needs more vector
// registers than the host has. Building the operator from the knobs is the runtime's job (the
// compiler does not know the CPU runtime): it is injected as a Builder that returns the
// candidate's body or throws a UserError, which apply() records as the candidate's error.
//
// Decisions (all "choose"):
//   dense:  rows, cols (multiples of the vector width), lanes (0 = whole tile row), k_unroll,
//           pack_a, row_block_tiles (row blocks of that many tiles; 0 = none), parallel_axis,
//           pack_w (W packed with gathers of panel columns, or row by row; in a pass of its
//           own, or each panel inside the kernel just before its row tiles), k_block
//           (reduction steps per K block, 0 = none), and for int8 k_pack (2: int16 pairs
//           with vpdpwssd, 4: bytes with vpdpbusd)
//   conv2d: ow (tile columns), oc_blocks (16-channel blocks per tile), reduce_order,
//           ci_unroll, rows_outer
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/codegen/lowered_func.h"
#include "compiler/tune/space.h"

namespace weft::compiler::tune {

/// What the space needs to know of the host.
struct CpuSpaceHost {
  int lanes32 = 8;      // 32-bit lanes of one vector register
  int registers = 16;   // vector registers
};

/// The knobs of a trace, by name (integers), e.g. {"rows": 6, "cols": 16, ...}.
using CpuKnobs = nlohmann::json;

/// What a CPU candidate is to the compiler side (the features read it): the lowered function,
/// the knobs it was built from and its arithmetic operations. The runtime's body derives from
/// it and adds what the measurer needs.
struct CpuCandidate : CandidateBody {
  codegen::LoweredFunc func;
  CpuKnobs knobs = nlohmann::json::object();
  double ops = 0;
  nlohmann::json describe() const override { return knobs; }
};

/// Builds the candidate's body from the knobs; throws UserError for an invalid schedule.
using CpuBuilder = std::function<std::shared_ptr<const CandidateBody>(const CpuKnobs&)>;

class CpuSpace : public SearchSpace {
 public:
  /// `op` is "dense" or "conv2d"; `w` its workload (dense: m, n, k; conv2d: oc, ...); `seeds`
  /// are knob sets measured first (today's default schedule first).
  CpuSpace(std::string op, Workload w, CpuSpaceHost host, CpuBuilder build,
           std::vector<CpuKnobs> seeds);
  std::string name() const override { return "llvm." + op_; }
  Trace sample(Rng& rng) const override;
  Candidate apply(const Trace& t) const override;
  std::vector<Trace> seeds() const override;
  double weight() const override;

  /// The trace that decides exactly these knobs (UserError naming a knob outside the space).
  Trace trace_of(const CpuKnobs& knobs) const;
  /// The knobs a trace decides (UserError for a trace of another space).
  CpuKnobs knobs_of(const Trace& t) const;
  /// The choices of each decision, in trace order.
  const std::vector<std::pair<std::string, std::vector<int64_t>>>& decisions() const {
    return decisions_;
  }

 private:
  std::string check_registers(const CpuKnobs& k) const;

  std::string op_;
  Workload workload_;
  CpuSpaceHost host_;
  CpuBuilder build_;
  std::vector<CpuKnobs> seeds_;
  std::vector<std::pair<std::string, std::vector<int64_t>>> decisions_;
};

}  // namespace weft::compiler::tune
