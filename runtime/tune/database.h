// Tuning records: a resumable JSON-lines database, one measured trial per line
//   {"workload": {...}, "target": {...}, "trace": {...}, "value": 123, "unit": "cycles",
//    "error": "", "trial": 7, "strategy": "model", "seed": 1}
// Opening reads every line (a corrupt line is a UserError naming the file and line, and the
// file is left untouched); commit() rewrites the whole file through a temporary and a rename,
// so a crash or a bad run never loses what was there. best() and lookup_best() are the API
// the compilers use: workload key + target key -> the best valid record.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/tune/space.h"
#include "compiler/tune/trace.h"

namespace weft::rt::tune {

struct TuningRecord {
  compiler::tune::Workload workload;
  compiler::tune::Target target;
  compiler::tune::Trace trace;
  double value = 0;      // measured cost (lower is better); meaningless when error is set
  std::string unit;      // "cycles", "seconds"
  std::string error;     // an invalid or failed candidate, recorded with its reason
  int64_t trial = 0;     // index within its search
  std::string strategy;  // how it was found
  uint64_t seed = 0;
  bool stopped_early = false;  // value is only a lower bound (the measurer gave up early)
  bool ok() const { return error.empty(); }
  nlohmann::json to_json() const;
  /// UserError naming the missing or malformed field.
  static TuningRecord from_json(const nlohmann::json& j);
};

class Database {
 public:
  /// An empty database that will be written to `path` ("" = in memory only).
  Database() = default;
  /// Loads `path` when it exists (UserError for a corrupt line: "FILE:LINE: ..."); a missing
  /// file is an empty database that commit() creates.
  explicit Database(std::string path);

  void add(TuningRecord r);
  /// Writes every record to path() atomically (temporary file + rename). UserError when the
  /// file cannot be written (the old file stays as it was).
  void commit() const;

  /// The best valid record (not stopped early) of a workload on a target (fewest cycles / seconds).
  std::optional<TuningRecord> best(const std::string& workload_key,
                                   const std::string& target_key) const;
  /// Every record of a workload on a target, in the order added.
  std::vector<TuningRecord> records(const std::string& workload_key,
                                    const std::string& target_key) const;
  const std::vector<TuningRecord>& all() const { return records_; }
  size_t size() const { return records_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<TuningRecord> records_;
};

/// The folder of the shipped default records (WEFT_TUNE_RECORDS overrides it).
std::string default_records_dir();
/// The best record for a workload and target: from `db_path` when given and it has one, else
/// from the shipped default records. Corrupt files are UserErrors.
std::optional<TuningRecord> lookup_best(const compiler::tune::Workload& w,
                                        const compiler::tune::Target& t,
                                        const std::string& db_path = "");

}  // namespace weft::rt::tune
