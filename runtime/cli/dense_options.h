// The options `weft run dense` and `weft compile dense` share: the shape, the configuration,
// the epilogue and the schedule knobs (tiles chosen automatically unless given).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/ops/dense.h"
#include "hardware/isa/layout.h"

namespace weft::cli {

struct DenseOptions {
  int64_t m = 0, n = 0, k = 0;
  std::string config = "gemm8x8", platform = "sim";
  int64_t vthreads = 2;
  std::string vthread_axis;  // empty: chosen
  int64_t tile_m = 0, tile_n = 0, tile_k = 0;  // 0: chosen
  int shift = 8;
  bool relu = false;
  std::string tune_db;                  // tuning records to prefer (else the shipped ones)
  bool no_records = false;              // ignore the tuning records
  CLI::Option* vthreads_opt = nullptr;  // given explicitly: the records do not override it
  const CLI::App* cmd = nullptr;        // the subcommand, to tell given options from defaults
                                        // (null when a program sets the options)

  /// Registers the options on a subcommand.
  void add_to(CLI::App& cmd);
  compiler::ops::DenseShape shape() const { return {m, n, k}; }
  compiler::ops::DenseEpilogue epilogue() const { return {shift, relu}; }
  /// UserError for a value out of range or a tuning-records file that cannot be read: checked
  /// before any work.
  void check() const;
  /// The knobs: given tiles, or the chooser's for the rest.
  compiler::ops::DenseKnobs knobs(const isa::Layout& layout) const;
};

/// Knobs as JSON.
nlohmann::ordered_json knobs_json(const compiler::ops::DenseKnobs& k);

}  // namespace weft::cli
