// Tuning records: a resumable JSON-lines database, one measured trial per line
//   {"workload": {...}, "target": {...}, "trace": {...}, "value": 123, "unit": "cycles",
//    "error": "", "trial": 7, "strategy": "model", "seed": 1}
// The file only grows: commit() appends the records added since the last commit, all in one
// write under an exclusive flock(2) of the file, and a load reads it under a shared lock, so two
// `weft tune` processes (or two MPI jobs) writing one database at once lose no record and never
// interleave lines. A crash in the middle of an append leaves a last line without its newline:
// a load reports it on stderr and skips it, and the next commit cuts it off before appending.
// Any other corrupt line is a UserError naming the file and line, and the file is left
// untouched. best() and lookup_best() are the API the compilers use: workload key + target
// key -> the best valid record.
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
  /// Loads `path` when it exists (UserError for a corrupt line: "FILE:LINE: ..."; a last line
  /// cut short by an interrupted append is reported on stderr and skipped); a missing file is an
  /// empty database that commit() creates, with its folder.
  explicit Database(std::string path);

  void add(TuningRecord r);
  /// Appends the records added since the last commit to path() (see above). UserError naming
  /// the file when it cannot be written; what was in the file stays.
  void commit();
  /// UserError unless `path` can be appended to: an existing regular file open for writing, or
  /// a new file in a folder that exists or can be created. For a command's checks before work.
  static void check_writable(const std::string& path, const std::string& what);
  /// Lines skipped when loading: the last line, when an interrupted append cut it short.
  size_t skipped_lines() const { return skipped_; }

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
  size_t committed_ = 0;  // records_[0, committed_) are in the file
  size_t skipped_ = 0;
};

/// The folder of the shipped default records (WEFT_TUNE_RECORDS overrides it).
std::string default_records_dir();
/// The best record for a workload and target: from `db_path` when given and it has one, else
/// from the shipped default records. Corrupt files are UserErrors. Each file is parsed once per
/// process while its size and modification time stay the same.
std::optional<TuningRecord> lookup_best(const compiler::tune::Workload& w,
                                        const compiler::tune::Target& t,
                                        const std::string& db_path = "");

}  // namespace weft::rt::tune
