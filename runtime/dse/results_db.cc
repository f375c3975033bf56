// The results database of a sweep (see results_db.h).
#include "runtime/dse/results_db.h"

#include <filesystem>
#include <sstream>

#include "hardware/isa/errors.h"
#include "runtime/io/files.h"
#include "runtime/io/interrupt.h"

namespace weft::rt::dse {

ResultsDb::ResultsDb(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (path_.empty() || !std::filesystem::exists(path_, ec)) return;
  std::stringstream in(read_text_file(path_));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = "results database '" + path_ + "' line " + std::to_string(n);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw UserError(at + ": not valid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("key") || !j["key"].is_string())
      throw UserError(at + ": not a weft dse record (an object with a string \"key\")");
    const std::string key = j["key"].get<std::string>();
    if (!records_.count(key)) order_.push_back(key);
    records_[key] = std::move(j);
  }
}

std::optional<nlohmann::json> ResultsDb::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

void ResultsDb::put(const nlohmann::json& record) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = record.at("key").get<std::string>();
  if (!records_.count(key)) order_.push_back(key);
  records_[key] = record;
  save();
}

size_t ResultsDb::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_.size();
}

void ResultsDb::save() const {
  if (path_.empty()) return;
  std::string text;
  for (const auto& k : order_) text += records_.at(k).dump() + "\n";
  OutputGuard hold;  // a Ctrl-C waits until the file is in place
  write_text_file(path_, text);
}

}  // namespace weft::rt::dse
