// The search-space interface of the tuner: what is tuned (a workload on a target), how a
// schedule is sampled as a trace, mutated, and applied. Applying a trace replays its decisions
// into the operator's schedule and post-processes the result (buffer capacities, the static
// token verifier, whatever the target checks); a candidate that fails carries its error and is
// recorded by the search, never thrown out of it.
//
// Spaces live beside their target: the accelerator's in compiler/tune/accel_*_space, the CPU
// backend's in compiler/tune/cpu_*_space. Measurers (runtime/tune) and feature extractors
// downcast Candidate::body to the space's own type.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/tune/rng.h"
#include "compiler/tune/trace.h"

namespace weft::compiler::tune {

/// What is tuned: an operator and its shape, e.g. {"dense", {"m":64,"n":512,"k":512}}.
struct Workload {
  std::string op;                                     // "dense", "conv2d"
  nlohmann::json shape = nlohmann::json::object();    // sizes by name (sorted on output)
  /// "conv2d(h=56,ic=64,k=3,n=8,oc=64,pad=1,stride=1,w=56)": the records' key.
  std::string key() const;
  nlohmann::json to_json() const;
  static Workload from_json(const nlohmann::json& j);  // UserError on a malformed one
};

/// Where it runs: "accel" with a hardware configuration and platform, or "llvm" with a CPU
/// description (e.g. "x86-64+avx512f,avx512vnni").
struct Target {
  std::string kind;      // "accel", "llvm"
  std::string config;    // accel: "gemm8x8", "vta"; llvm: the CPU
  std::string platform;  // accel: the platform name; llvm: "" (one thread)
  /// "accel/gemm8x8/default".
  std::string key() const;
  nlohmann::json to_json() const;
  static Target from_json(const nlohmann::json& j);
};

/// A space's own result of applying a trace: the scheduled (and, where cheap, lowered)
/// operator that a measurer runs and a feature extractor reads.
struct CandidateBody {
  virtual ~CandidateBody() = default;
  /// A readable summary for logs and the JSON summary (knobs, sizes).
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

/// A trace applied: either a body, or the error that made the schedule invalid.
struct Candidate {
  Trace trace;
  std::shared_ptr<const CandidateBody> body;
  std::string error;  // non-empty: invalid (capacity, token verifier, ...) with the reason
  bool ok() const { return error.empty() && body != nullptr; }
  template <class T>
  const T* as() const { return dynamic_cast<const T*>(body.get()); }
};

/// A space of schedules for one workload on one target. Implementations are immutable after
/// construction and safe to call from several threads at once.
class SearchSpace {
 public:
  virtual ~SearchSpace() = default;
  /// "accel.conv2d", "llvm.dense", ...
  virtual std::string name() const = 0;
  /// A random trace (every decision sampled with `rng`). A space whose operator has a cheap
  /// legality check (the accelerator's, AccelSpace) returns only traces that pass it.
  virtual Trace sample(Rng& rng) const = 0;
  /// A neighbour of `t`; by default one decision resampled (mutate_trace); legal, as sample().
  virtual Trace mutate(const Trace& t, Rng& rng) const { return mutate_trace(t, rng); }
  /// Replays `t` and validates the result; never throws for an invalid schedule (the
  /// candidate carries the error), only for a broken invariant.
  virtual Candidate apply(const Trace& t) const = 0;
  /// "" when `t` was made for this space (same steps and arguments), else why not: a
  /// database whose records do not fit the space is a user error, not an invalid candidate.
  virtual std::string check_trace(const Trace& t) const { return ""; }
  /// Traces worth measuring first: the analytic chooser's picks, hand schedules.
  virtual std::vector<Trace> seeds() const { return {}; }
  /// A relative estimate of this workload's run time (a network's task scheduler shares the
  /// trials by it); by default 1.
  virtual double weight() const { return 1.0; }
};

}  // namespace weft::compiler::tune
