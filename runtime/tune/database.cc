// The JSON-lines tuning database: load with line-numbered errors, atomic rewrite on commit,
// best-record queries, and the lookup that falls back to the shipped default records.
#include "runtime/tune/database.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "hardware/isa/errors.h"

namespace weft::rt::tune {

using compiler::tune::Target;
using compiler::tune::Trace;
using compiler::tune::Workload;
using nlohmann::json;

json TuningRecord::to_json() const {
  json j = {{"workload", workload.to_json()}, {"target", target.to_json()},
            {"trace", trace.to_json()}, {"value", value}, {"unit", unit}, {"error", error},
            {"trial", trial}, {"strategy", strategy}, {"seed", seed}};
  if (stopped_early) j["stopped_early"] = true;
  return j;
}

TuningRecord TuningRecord::from_json(const json& j) {
  if (!j.is_object()) throw UserError("record is not a JSON object");
  for (const char* f : {"workload", "target", "trace", "value", "unit"})
    if (!j.contains(f)) throw UserError(std::string("record has no '") + f + "' field");
  TuningRecord r;
  r.workload = Workload::from_json(j["workload"]);
  r.target = Target::from_json(j["target"]);
  r.trace = Trace::from_json(j["trace"]);
  if (!j["value"].is_number()) throw UserError("record field 'value' is not a number");
  r.value = j["value"].get<double>();
  if (!j["unit"].is_string()) throw UserError("record field 'unit' is not a string");
  r.unit = j["unit"];
  r.error = j.value("error", "");
  r.trial = j.value("trial", int64_t{0});
  r.strategy = j.value("strategy", "");
  r.seed = j.value("seed", uint64_t{0});
  r.stopped_early = j.value("stopped_early", false);
  return r;
}

Database::Database(std::string path) : path_(std::move(path)) {
  if (path_.empty() || !std::filesystem::exists(path_)) return;
  std::ifstream in(path_);
  if (!in) throw UserError("tuning database " + path_ + ": cannot be read");
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded())
      throw UserError("tuning database " + path_ + ":" + std::to_string(n) +
                      ": not valid JSON (the file is left as it is)");
    try {
      records_.push_back(TuningRecord::from_json(j));
    } catch (const UserError& e) {
      throw UserError("tuning database " + path_ + ":" + std::to_string(n) + ": " + e.what() +
                      " (the file is left as it is)");
    }
  }
}

void Database::add(TuningRecord r) { records_.push_back(std::move(r)); }

void Database::commit() const {
  if (path_.empty()) return;
  namespace fs = std::filesystem;
  fs::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw UserError("tuning database " + path_ + ": cannot write " + tmp);
    for (const TuningRecord& r : records_) out << r.to_json().dump() << '\n';
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw UserError("tuning database " + path_ + ": writing " + tmp + " failed");
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UserError("tuning database " + path_ + ": cannot replace it (" + ec.message() + ")");
  }
}

std::optional<TuningRecord> Database::best(const std::string& wk, const std::string& tk) const {
  const TuningRecord* best = nullptr;
  for (const TuningRecord& r : records_)
    if (r.ok() && !r.stopped_early && r.workload.key() == wk && r.target.key() == tk && (!best || r.value < best->value))
      best = &r;
  if (!best) return std::nullopt;
  return *best;
}

std::vector<TuningRecord> Database::records(const std::string& wk, const std::string& tk) const {
  std::vector<TuningRecord> out;
  for (const TuningRecord& r : records_)
    if (r.workload.key() == wk && r.target.key() == tk) out.push_back(r);
  return out;
}

std::string default_records_dir() {
  if (const char* e = std::getenv("WEFT_TUNE_RECORDS")) return e;
#ifdef WEFT_TUNE_RECORDS_DIR
  return WEFT_TUNE_RECORDS_DIR;
#else
  return "records";
#endif
}

std::optional<TuningRecord> lookup_best(const Workload& w, const Target& t,
                                        const std::string& db_path) {
  std::string wk = w.key(), tk = t.key();
  if (!db_path.empty()) {
    Database db(db_path);
    if (auto r = db.best(wk, tk)) return r;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir(default_records_dir());
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::optional<TuningRecord> best;
  for (const fs::path& f : files) {
    Database db(f.string());
    auto r = db.best(wk, tk);
    if (r && (!best || r->value < best->value)) best = r;
  }
  return best;
}

}  // namespace weft::rt::tune
