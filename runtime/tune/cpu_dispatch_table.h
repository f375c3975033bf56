// The CPU dispatch table (issue #29, DietCode on the CPU): for one host kind ("avx512-vnni",
// "avx512", "avx2"), a list of shape buckets of an operator family (dense or conv2d, float32
// or int8), each with the micro-kernel a tuning run measured best at the bucket's home shape.
// A shape that was never tuned takes the kernel of the first bucket whose ranges hold it.
// Tables are data files shipped next to the tuning records
// (runtime/tune/records/cpu_dispatch_<host kind>.json), made by `bench_cpu_dispatch_tune`
// (scripts/bench/cpu_dispatch_tune.cc); docs/cpu-tuning.md shows the format.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weft::rt::tune {

/// The upper end of a range that has none ("ic 192+").
constexpr int64_t kNoUpperBound = int64_t{1} << 40;

/// A shape as the buckets see it: dimension name -> size (dense: m, n, k; conv2d: ic, oc, ow,
/// oh, kh, stride, n).
using ShapeDims = std::map<std::string, int64_t>;

/// One bucket: the inclusive ranges of the dimensions it constrains (the others are free), its
/// home shape (where it was tuned), and its micro-kernel (a name and the schedule's knobs).
struct CpuDispatchEntry {
  std::string op, dtype;
  std::map<std::string, std::pair<int64_t, int64_t>> when;
  ShapeDims home;
  std::string kernel;
  nlohmann::json knobs = nlohmann::json::object();
  double seconds = 0;  // the kernel's time at the home shape when it was tuned (0: unknown)
  bool holds(const ShapeDims& d) const;
  /// e.g. "m 16..255, n 1..31, k 1536+".
  std::string describe() const;
};

class CpuDispatchTable {
 public:
  CpuDispatchTable() = default;
  explicit CpuDispatchTable(std::string host_kind) : host_kind_(std::move(host_kind)) {}
  /// A table from its JSON; UserError naming `where` and the entry for anything malformed
  /// (an unknown op, dtype or dimension, a range lo > hi or below 1, a knob set the operator
  /// rejects, a missing field).
  static CpuDispatchTable from_json(const nlohmann::json& j, const std::string& where);
  /// from_json of a file; UserError when it cannot be read or is not JSON.
  static CpuDispatchTable load(const std::string& path);
  nlohmann::json to_json() const;

  const std::string& host_kind() const { return host_kind_; }
  const std::vector<CpuDispatchEntry>& entries() const { return entries_; }
  void add(CpuDispatchEntry e) { entries_.push_back(std::move(e)); }
  /// The first entry of `op`/`dtype` whose ranges hold `d`; null when none does.
  const CpuDispatchEntry* find(const std::string& op, const std::string& dtype,
                            const ShapeDims& d) const;

 private:
  std::string host_kind_;
  std::vector<CpuDispatchEntry> entries_;
};

/// The shipped table's path for a host kind: default_records_dir()/cpu_dispatch_<kind>.json.
std::string dispatch_table_path(const std::string& host_kind);

}  // namespace weft::rt::tune
