// The measuring side of the distributed runner, without MPI: what a worker does with a
// request. The MPI worker ranks and rank 0's own measuring thread run the same code, so a
// candidate gives the same result wherever it is measured. Requests and replies are JSON:
//   prepare {task, i, trace, features, measure, stop} -> {i, error, features, describe, result}:
//     applies the trace (compile, validate), extracts the features when asked, and either
//     measures it at once (`measure`; `result` is the measurement) or keeps the build for a
//     later `measure` request (`result` is null);
//   measure {task, i, trace, stop} -> {i, value, error, stopped_early, wall_s, details}:
//     measures, reusing a kept build (else applying the trace again).
// `stop` is the early-stop threshold, -1 for none. A failure becomes the candidate's error.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runtime/tune/search.h"

namespace weft::rt::tune {

/// A measurement as JSON, and back.
nlohmann::json result_to_json(const MeasureResult& r);
MeasureResult result_from_json(const nlohmann::json& j);

class CandidateWorker {
 public:
  explicit CandidateWorker(const std::vector<Task>& tasks) : tasks_(tasks) {}
  nlohmann::json prepare(const nlohmann::json& request);
  nlohmann::json measure(const nlohmann::json& request);
  /// Drops the kept builds (after each measured batch).
  void clear() { kept_.clear(); }

 private:
  const std::vector<Task>& tasks_;
  std::map<std::pair<size_t, std::string>, compiler::tune::Candidate> kept_;
};

}  // namespace weft::rt::tune
