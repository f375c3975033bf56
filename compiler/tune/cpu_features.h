// Loop-nest features of a CPU candidate for the cost model (issue #14): computed from the
// lowered loop IR without running it (dynamic counts of loads, stores and vector operations
// with trip counts multiplied through the nest, the widest vector, the local (register) tile's
// size, loops of each kind) and from the knobs the trace decided (register tile, unrolling,
// packing, blocking). Counts are log2(1 + n) so that one model serves small and large shapes.
#pragma once

#include <string>
#include <vector>

#include "compiler/tune/features.h"

namespace weft::compiler::tune {

class CpuLoopFeatures : public FeatureExtractor {
 public:
  std::vector<std::string> names() const override;
  /// All zeros for an invalid candidate or one that is not a CpuCandidate.
  std::vector<float> extract(const Candidate& c) const override;
};

}  // namespace weft::compiler::tune
