// The feature interface of the cost model: a candidate becomes a fixed-length vector of
// floats computed without running it (for the accelerator from the lowered instruction
// stream, for the CPU from the loop nest). Every candidate of one extractor has the same
// length and the same meaning per slot, named by names().
#pragma once

#include <string>
#include <vector>

#include "compiler/tune/space.h"

namespace weft::compiler::tune {

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  /// One name per slot ("dma_load_bytes", "uops_per_gemm", ...).
  virtual std::vector<std::string> names() const = 0;
  size_t size() const { return names().size(); }
  /// The features of a valid candidate (ok()); an invalid one gets all zeros.
  virtual std::vector<float> extract(const Candidate& c) const = 0;
};

}  // namespace weft::compiler::tune
