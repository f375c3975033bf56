// The Runner without MPI: measures a batch of candidates on a pool of host threads, each
// candidate by one worker, results in candidate order (so the search does not depend on which
// worker finished first). parallel_for is the same pool for other per-candidate work.
#pragma once

#include <functional>

#include "runtime/tune/search.h"

namespace weft::rt::tune {

/// Runs body(i) for i in [0, n) on `workers` threads (1: inline).
void parallel_for(size_t n, int workers, const std::function<void(size_t)>& body);

class ThreadRunner : public Runner {
 public:
  explicit ThreadRunner(int workers);
  std::vector<MeasureResult> run(const Task& task,
                                 const std::vector<compiler::tune::Candidate>& cands,
                                 double stop_above) override;
  int workers() const override { return workers_; }

 private:
  int workers_;
};

}  // namespace weft::rt::tune
