// The runtime's knob source for the graph lowering (compiler/graph/lower/knob_source.h), which
// the graph executor hands to the compiler:
// recorded knobs from the tuning records (issue #14: `--tune-db` first, then the shipped
// records in runtime/tune/records), kept only when the network can use them, i.e. when their
// tiling covers the layer exactly (a packed value passes from one kernel to the next with no
// padding blocks) and the operator builds with the node's epilogue (a fused residual needs
// accumulator room the standalone tuning did not reserve); and measurement of candidates on the
// cycle model (runtime/tune/knob_search.h), remembered in a knob cache file when one is given.
//
//   TunedKnobs source(layout, platform, {true, db, cache_path});
//   compiler::graph::KnobChooser chooser(layout, platform, tune, &source);
//
// Dense layers run as 1x1 convolutions on the accelerator; their dense records (DenseKnobs)
// are not translated, so dense nodes use the lowering's own choice.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "compiler/graph/lower/knob_source.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/tune/knob_search.h"

namespace weft::rt::tune {

/// The recorded knobs of `s` when they exist, cover it exactly and build with `e`; else nothing.
/// A corrupt records file is a UserError (from the database).
std::optional<compiler::ops::Conv2dKnobs> exact_recorded_knobs(
    const isa::Layout& l, const isa::Platform& pf, const compiler::ops::Conv2dShape& s,
    const compiler::ops::Conv2dEpilogue& e, const std::string& db_path);

class TunedKnobs : public compiler::graph::KnobSource {
 public:
  struct Options {
    bool use_records = true;  // consult the tuning records
    std::string tune_db;      // records consulted before the shipped ones ("" for none)
    std::string knob_cache;   // file remembering measured choices ("" for none)
  };
  TunedKnobs(const isa::Layout& layout, const isa::Platform& platform, Options options);

  std::optional<compiler::ops::Conv2dKnobs> recorded(
      const compiler::ops::Conv2dShape& shape, const compiler::ops::Conv2dEpilogue& e) override;
  /// The knob cache's choice for `key`, else the fewest cycles on the cycle model (then cached).
  compiler::ops::Conv2dKnobs fastest(
      const std::string& key, const compiler::ops::Conv2dShape& shape,
      const std::vector<compiler::ops::Conv2dKnobs>& candidates) override;
  std::string fastest_note() const override { return cache_ ? ", knob cache" : ""; }

 private:
  const isa::Layout& layout_;
  const isa::Platform& platform_;
  Options options_;
  std::unique_ptr<KnobCache> cache_;
};

}  // namespace weft::rt::tune
