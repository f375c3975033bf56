// The results database of `weft dse`: JSON lines, one measured point per line (the record
// dse_run.h writes, keyed by "key": the workload, the hardware and the costing), so a rerun
// measures only the points it lacks. Rewritten atomically after every point (a temporary file
// renamed over it, with Ctrl-C held off while it is written), so an interrupted sweep leaves a
// valid file holding every point finished before it. Records of points outside the current
// sweep are kept.
#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace weft::rt::dse {

class ResultsDb {
 public:
  /// Opens `path` ("" keeps nothing on disk); an existing file is read. UserError naming the
  /// file and line for a line that is not a JSON object with a string "key".
  explicit ResultsDb(std::string path);
  /// A copy of the record of `key`, or nothing.
  std::optional<nlohmann::json> find(const std::string& key) const;
  /// Adds (or replaces) a record and rewrites the file. Safe from several threads.
  void put(const nlohmann::json& record);
  size_t size() const;

 private:
  void save() const;  // with mu_ held
  std::string path_;
  mutable std::mutex mu_;
  std::vector<std::string> order_;  // keys in the order first seen
  std::map<std::string, nlohmann::json> records_;
};

}  // namespace weft::rt::dse
