// The options `weft run conv2d` and `weft compile conv2d` share: the layer or shape, the
// configuration and platform, the epilogue and the schedule knobs (chosen unless given).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::rt {
struct KnobSearch;
}

namespace weft::cli {

/// The shape every target's conv2d takes: ResNet-18 layer `layer` with batch `n` when it is not
/// empty, else the given one; UserError naming the layer, or the options missing.
compiler::ops::Conv2dShape conv2d_shape(const std::string& layer, int64_t n, int64_t h, int64_t w,
                                        int64_t ic, int64_t oc, int64_t k, int64_t stride,
                                        int64_t pad);

struct Conv2dOptions {
  std::string layer;
  int64_t n = 1, h = 0, w = 0, ic = 0, oc = 0, k = 0, stride = 1, pad = 0;
  std::string config = "gemm8x8", platform = "sim", vthread_axis;
  int64_t vthreads = 2, tile_h = 0, tile_w = 0, tile_ic = 0, tile_oc = 0;
  size_t search = 1;
  std::string tune_db;                   // tuning records to prefer (else the shipped ones)
  bool no_records = false;               // ignore the tuning records
  CLI::Option* vthreads_opt = nullptr;   // given explicitly: the records do not override it
  const CLI::App* cmd = nullptr;         // the subcommand, to tell given options from defaults
                                         // (null when a program sets the options)
  mutable std::string knobs_source;      // "records", "search", "chooser" (set by knobs())
  int shift = 8;
  bool no_bias = false, no_relu = false;

  /// Registers the options on a subcommand.
  void add_to(CLI::App& cmd);
  /// UserError for options that contradict each other (--layer with a shape option), a value
  /// out of range or a tuning-records file that cannot be read: checked before any work.
  void check() const;
  /// The layer's shape (with --N as the batch) or the given one; UserError when incomplete.
  compiler::ops::Conv2dShape shape() const;
  compiler::ops::Conv2dEpilogue epilogue() const { return {shift, !no_bias, !no_relu}; }
  /// The knobs: the chooser's (or the best of --search on the cycle model, each candidate shown
  /// on standard error; `searched` receives what the search tried and rejected), with the given
  /// tiles and axis in place of its own.
  compiler::ops::Conv2dKnobs knobs(const isa::Layout& layout, const isa::Platform& platform,
                                   rt::KnobSearch* searched = nullptr) const;
};

}  // namespace weft::cli
