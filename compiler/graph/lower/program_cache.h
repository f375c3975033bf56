// Where the graph lowering keeps compiled accelerator programs across runs. Lowering a node
// (compile_accel) is most of a network's compile time; its result depends only on the operator
// and the rewrites that apply (AccelLowering's program key), not on the weights, so a program
// compiled once serves every later run of the same layer. The compiler states what it needs
// and the runtime implements it (rt::graph::ProgramFileCache: one file per key under a cache
// folder), as with the tuning records (knob_source.h), so the compiler reads and writes no file.
// A program names its DRAM tensors by role (their index in `roles`: input, weight, bias, ...),
// so a stored one is rebound to the tensors of the node that finds it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/accel/program.h"

namespace weft::compiler::graph {

/// A compiled program with the rewrites that ran (AccelKernel::rewrites).
struct StoredProgram {
  accel::Program program;
  std::vector<std::string> rewrites;
};

class ProgramCache {
 public:
  virtual ~ProgramCache() = default;
  /// The program stored under `key`, its tensors as `roles` (the same roles, in the same order,
  /// as when it was stored), or nothing (never stored, unreadable or from another build).
  virtual std::optional<StoredProgram> find(const std::string& key,
                                            const std::vector<ir::Buffer>& roles) = 0;
  /// Stores `p` under `key`; each tensor it names is one of `roles`. A failure is the cache's
  /// to report (a warning): the run goes on without it.
  virtual void put(const std::string& key, const StoredProgram& p,
                   const std::vector<ir::Buffer>& roles) = 0;
};

}  // namespace weft::compiler::graph
