// Conv2d knobs for the graph's accelerator kernels. A packed value passes from one kernel to
// the next with no padding rows or channel blocks in between, so a kernel's tiling must cover
// its output, input and output channels exactly (knobs_cover_exactly). The choice, in order:
// the tuning records (KnobSource::recorded), else the analytic chooser's first exact tiling, or
// with `tune` > 1 the fastest of its first `tune` exact tilings (KnobSource::fastest). A
// KnobChooser remembers its choices (ResNet-18 repeats most of its layers); the caller owns it.
//
//   KnobChooser chooser(layout, platform, tune, &source);
//   KnobChoice c = chooser.choose(shape, epilogue, node.name);   // c.knobs, c.source
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/graph/lower/knob_source.h"
#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::graph {

/// True when `k` tiles `s` exactly on `l`: whole tiles of input and output channel blocks (per
/// virtual thread), output rows and output columns.
bool knobs_cover_exactly(const isa::Layout& l, const ops::Conv2dShape& s,
                         const ops::Conv2dKnobs& k);

/// The first `count` (at least one) exact tilings in the analytic chooser's order, two virtual
/// threads before one. Where the channel blocks per thread are not a power of two (the fc: 63
/// blocks) a candidate's tile_oc becomes its largest divisor of them at most as large. May be
/// empty.
std::vector<ops::Conv2dKnobs> exact_tilings(const isa::Layout& l, const isa::Platform& pf,
                                            const ops::Conv2dShape& s, bool residual,
                                            bool channel_shifts, size_t count);

/// A choice and where it came from ("tuning records", "analytic chooser", "measured (...)").
struct KnobChoice {
  ops::Conv2dKnobs knobs;
  std::string source;
};

/// Chooses and remembers knobs (see above); `source` may be null (no records, no measuring).
class KnobChooser {
 public:
  KnobChooser(const isa::Layout& layout, const isa::Platform& platform, size_t tune,
              KnobSource* source);
  /// UserError naming `node` when no tiling covers the layer exactly.
  KnobChoice choose(const ops::Conv2dShape& s, const ops::Conv2dEpilogue& e,
                    const std::string& node);

 private:
  const isa::Layout& layout_;
  const isa::Platform& platform_;
  size_t tune_;
  KnobSource* source_;
  std::map<std::string, ops::Conv2dKnobs> memo_;  // by the choice's key
};

}  // namespace weft::compiler::graph
