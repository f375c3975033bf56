// Shape-generic tuning (after DietCode): tune once for a family of shapes and dispatch every
// shape of it to a micro-kernel from a table. A micro-kernel is the per-tile part of a
// schedule (the knobs: output tile, channel / reduction blocking, virtual threads and their
// axis), independent of the full shape; on a shape it does not divide, the last tile is
// padded. For a family (dense with M in lo..hi and fixed N, K; conv2d with H = W in lo..hi
// and fixed channels, kernel, stride, pad) the tuner
//   1. picks home shapes: the family's ends and geometric points between (--reps of them);
//   2. at each home gathers candidate micro-kernels that fit it: the whole output in one tile
//      with the largest channel / reduction blockings and 1, 2, 4 threads, the analytic
//      chooser's picks, random samples; each group ranked by an analytic score read from
//      the lowered program (the roofline bound plus the part of compute / memory that one
//      thread cannot overlap, plus the read latency; no simulation);
//   3. measures round robin over the homes (each candidate once, at its home) within the
//      trial budget; between rounds the XGBoost ranker, retrained on every measurement so far
//      (grouped by home), reorders what is left at each home; every trial lands in the
//      tuning database like any other;
//   4. learns per micro-kernel cycles = fixed + per_tile x tiles(shape), tiles(shape) being
//      the analytic spatial term (output tiles, the last one padded, so the padding waste of
//      a non-dividing shape is in it); least squares over the shapes it was measured on, one
//      shape: proportional;
//   5. for every member of the family picks the measured micro-kernel with the least
//      predicted cycles whose knobs pass the operator's checks there -> the dispatch table.
// The table is JSON, stored next to the tuning database (`DB.dispatch.json`); `weft run
// dense|conv2d --tune-db DB` and recorded_*_knobs use it when no exact record exists or the
// table predicts a faster micro-kernel than the best exact record.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "runtime/tune/database.h"
#include "runtime/tune/search.h"

namespace weft::rt::tune {

/// A family of shapes: one size varies over [lo, hi], the others are fixed.
struct ShapeFamily {
  std::string op;   // "dense" (varies M) or "conv2d" (varies H = W)
  std::string var;  // "M" or "HW"
  int64_t lo = 1, hi = 1;
  compiler::ops::DenseShape dense;   // dense: n, k fixed (m ignored)
  compiler::ops::Conv2dShape conv;   // conv2d: n, ic, oc, k, stride, pad fixed (h, w ignored)
  /// Parses "M=1:256" (dense) or "HW=7:224" (conv2d); UserError naming what is wrong.
  static ShapeFamily parse(const std::string& op, const std::string& spec,
                           const compiler::ops::DenseShape& dense,
                           const compiler::ops::Conv2dShape& conv);
  compiler::ops::DenseShape dense_at(int64_t v) const;
  compiler::ops::Conv2dShape conv_at(int64_t v) const;
  /// The workload of the family member v.
  compiler::tune::Workload workload_at(int64_t v) const;
  /// The varying size of a workload of this family, or nothing when it is not a member.
  std::optional<int64_t> member(const compiler::tune::Workload& w) const;
  nlohmann::json to_json() const;
  static ShapeFamily from_json(const nlohmann::json& j);
  /// lo, hi and geometric midpoints: `n` representative values (n >= 1).
  std::vector<int64_t> representatives(int n) const;
};

struct GenericOptions {
  int64_t trials = 24;  // measured trials in all
  int reps = 12;        // home shapes (the ends and geometric points between)
  int pool = 48;        // candidate micro-kernels ranked before measuring
  uint64_t seed = 1;
  int workers = 1;
};

/// One micro-kernel of a table, with its learned cost: cycles = fixed + per_tile * tiles.
struct MicroKernel {
  nlohmann::json knobs;  // {"tile_m":..} / {"tile_h":..}, as the operator's knobs
  double fixed = 0, per_tile = 0;
  std::map<int64_t, double> measured;  // family value -> cycles
  nlohmann::json to_json() const;
  static MicroKernel from_json(const nlohmann::json& j);
};

struct DispatchTable {
  ShapeFamily family;
  compiler::tune::Target target;
  std::vector<MicroKernel> kernels;
  std::map<int64_t, int> kernel_of;        // family value -> index into kernels
  std::map<int64_t, double> predicted;     // family value -> predicted cycles
  int64_t trials = 0;                      // measured trials spent
  nlohmann::json to_json() const;
  /// UserError naming the malformed field.
  static DispatchTable from_json(const nlohmann::json& j);
  /// Writes atomically (temporary + rename); loads with a UserError naming the file.
  void save(const std::string& path) const;
  static DispatchTable load(const std::string& path);
};

/// Where a database's dispatch table lives: "DB.dispatch.json".
std::string dispatch_path(const std::string& db_path);

using GenericProgress = std::function<void(const std::string& line)>;

/// Tunes an accelerator family (the cycle model). Measured trials are added to `db` when
/// given. UserError when no candidate micro-kernel is valid on the family.
DispatchTable tune_family(const ShapeFamily& fam, const std::string& config,
                          const std::string& platform, const GenericOptions& opts,
                          Database* db, const GenericProgress& progress = {});

/// The output tiles of a micro-kernel on a family member (the analytic spatial term), or
/// nothing when the micro-kernel's tiles do not fit the shape.
std::optional<double> spatial_tiles(const ShapeFamily& fam, const std::string& config,
                                    const nlohmann::json& knobs, int64_t v);

/// A dispatched micro-kernel: the operator's knobs JSON and the table's predicted cycles.
struct Dispatched {
  nlohmann::json knobs;
  double predicted = 0;
};
/// The dispatched micro-kernel of a workload from the table next to `db_path` (when it has
/// one whose family holds the workload on this target); else nothing. A corrupt table is a
/// UserError naming the file.
std::optional<Dispatched> dispatch_knobs(const compiler::tune::Workload& w,
                                         const compiler::tune::Target& t,
                                         const std::string& db_path);

compiler::ops::DenseKnobs dense_knobs_from_json(const nlohmann::json& j);
compiler::ops::Conv2dKnobs conv2d_knobs_from_json(const nlohmann::json& j);
nlohmann::json knobs_to_json(const compiler::ops::DenseKnobs& k);
nlohmann::json knobs_to_json(const compiler::ops::Conv2dKnobs& k);

}  // namespace weft::rt::tune
