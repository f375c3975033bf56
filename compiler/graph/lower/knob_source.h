// Where the graph lowering gets conv2d schedule knobs it cannot derive by itself: the tuning
// records and measurement. The compiler only states what it needs; the runtime implements it
// (rt::tune::TunedKnobs: the shipped records and --tune-db, and the cycle model with a knob
// cache file), so the compiler depends on no record format, device or file. A lowering with no
// source takes the analytic chooser's first exact tiling.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"

namespace weft::compiler::graph {

class KnobSource {
 public:
  virtual ~KnobSource() = default;
  /// Recorded knobs for `shape` with `epilogue` that tile it exactly and build with that
  /// epilogue (knobs_cover_exactly), or nothing. UserError for an unreadable record file.
  virtual std::optional<ops::Conv2dKnobs> recorded(const ops::Conv2dShape& shape,
                                                   const ops::Conv2dEpilogue& epilogue) = 0;
  /// The fastest of `candidates` (at least two, each valid for `shape`); `key` names this
  /// choice (configuration, platform, shape, epilogue, count) for a cache of choices.
  virtual ops::Conv2dKnobs fastest(const std::string& key, const ops::Conv2dShape& shape,
                                   const std::vector<ops::Conv2dKnobs>& candidates) = 0;
  /// Appended to the report's schedule source of a measured choice (e.g. ", knob cache").
  virtual std::string fastest_note() const { return ""; }
};

}  // namespace weft::compiler::graph
