// The measurer interface of the tuner: runs a valid candidate and returns its cost (cycles on
// the accelerator's cycle model, seconds for the LLVM JIT on the host), or the error that
// stopped it. `stop_above` is the early-stop threshold: a measurer may give up once the cost
// is certain to exceed it and return stopped_early with a lower bound as its value (the search
// treats it as "worse than the best", never as the best).
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/tune/space.h"

namespace weft::rt::tune {

/// One measurement.
struct MeasureResult {
  double value = 0;            // cost in the measurer's unit (lower is better)
  std::string error;           // non-empty: the candidate failed to compile or run
  bool stopped_early = false;  // value is a lower bound above the threshold
  double wall_s = 0;           // host time the measurement took
  nlohmann::json details = nlohmann::json::object();
  bool ok() const { return error.empty(); }
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  /// "cycles" or "seconds".
  virtual std::string unit() const = 0;
  /// Measures `c` (which the caller has checked is ok()). Safe to call from several threads.
  virtual MeasureResult measure(const compiler::tune::Candidate& c,
                                double stop_above = std::numeric_limits<double>::infinity())
      const = 0;
};

}  // namespace weft::rt::tune
