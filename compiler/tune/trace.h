// A schedule as a trace (after MetaSchedule's "schedules as probabilistic programs"): a list of
// schedule primitives, each with fixed arguments and the random decision that was sampled for
// it. Replaying a trace (SearchSpace::apply) reads the decisions by name, so a trace is the
// whole schedule: it is printed, stored in the tuning records as JSON, mutated by the search
// and turned back into the same schedule bit for bit.
//
// Two kinds of decision cover today's spaces:
//   "split"  perfect tile split: args {"extent": E, "parts": P [, "max_inner": I]} and a
//            decision of P factors whose product is E (outermost first);
//   "choose" categorical choice: args {"choices": [...] (integers or strings)} and a decision
//            of one index into the choices.
// Any other primitive (fixed steps such as "order" or "tensorize" that carry no decision) is
// kept and replayed as it is.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/tune/rng.h"

namespace weft::compiler::tune {

/// One primitive of a trace.
struct Step {
  std::string primitive;          // "split", "choose", or a fixed primitive
  std::string name;               // what it decides: an axis ("m", "oc") or a knob ("vthreads")
  nlohmann::json args = nlohmann::json::object();  // fixed inputs (extent, choices, ...)
  std::vector<int64_t> decision;  // split: factors; choose: {index}
  bool operator==(const Step& o) const;
};

/// A sampled schedule.
class Trace {
 public:
  std::vector<Step> steps;

  /// Samples a perfect split of `extent` into `parts` factors (each factor a divisor; the
  /// innermost at most `max_inner` when > 0), appends the step and returns the factors.
  std::vector<int64_t> split(Rng& rng, const std::string& name, int64_t extent, int parts,
                             int64_t max_inner = 0);
  /// Samples one of `choices` (weights default to uniform), appends the step, returns the index.
  size_t choose(Rng& rng, const std::string& name, const nlohmann::json& choices,
                const std::vector<double>& weights = {});
  /// Appends a step with a given decision (seeding a trace from known knobs).
  void add(const std::string& primitive, const std::string& name, nlohmann::json args,
           std::vector<int64_t> decision);

  /// The step deciding `name`, or nullptr.
  const Step* find(const std::string& name) const;
  /// The factors of split `name`; UserError naming it when it is missing or not a split.
  const std::vector<int64_t>& factors(const std::string& name) const;
  /// The chosen value of choose `name` (the JSON element); UserError when missing.
  const nlohmann::json& chosen(const std::string& name) const;
  /// chosen(name) as an integer / a string.
  int64_t chosen_int(const std::string& name) const;
  std::string chosen_str(const std::string& name) const;

  /// Decisions only, in order: a compact identity for de-duplication ("m=2x8 vt=1 ...").
  std::string key() const;
  bool operator==(const Trace& o) const { return steps == o.steps; }

  /// {"steps": [{"primitive", "name", "args", "decision"}...]}.
  nlohmann::json to_json() const;
  /// UserError naming the step and field for malformed JSON or an inconsistent decision (a
  /// split whose product is not its extent, a choice index out of range).
  static Trace from_json(const nlohmann::json& j);
};

/// Checks one step's decision against its arguments; returns an error message or "".
std::string check_step(const Step& s);

/// The divisors of n in increasing order.
std::vector<int64_t> divisors(int64_t n);

/// Visits every trace with the structure of `t` (each choice of each "choose", each perfect
/// split of each "split" within its max_inner), in a fixed order, until `visit` returns true;
/// returns whether it did. For spaces small enough to enumerate (the accelerator's).
bool for_each_decision(const Trace& t, const std::function<bool(const Trace&)>& visit);

/// Resamples the decision of one randomly chosen decision step (a split re-split between two
/// of its factors, a choice moved to another index). The trace's structure is unchanged.
/// Returns the trace itself when it has no decision that can change.
Trace mutate_trace(const Trace& t, Rng& rng);

}  // namespace weft::compiler::tune
