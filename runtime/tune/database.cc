// The JSON-lines tuning database: load under a shared lock with line-numbered errors, appends
// under an exclusive lock on commit, best-record queries, and the lookup that falls back to the
// shipped default records.
#include "runtime/tune/database.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hardware/isa/errors.h"
#include "runtime/io/files.h"

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
  // The optional fields, each of its own type: a number past an integer's range (the parser
  // keeps it as a double) is an error, not a conversion.
  auto check = [&](const char* f, bool ok, const char* what) {
    if (j.contains(f) && !ok)
      throw UserError(std::string("record field '") + f + "' is not " + what);
  };
  check("error", j.value("error", json("")).is_string(), "a string");
  check("strategy", j.value("strategy", json("")).is_string(), "a string");
  const json trial = j.value("trial", json(0));
  check("trial",
        trial.is_number_integer() &&
            !(trial.is_number_unsigned() && trial.get<uint64_t>() > uint64_t{INT64_MAX}),
        "an integer");
  check("seed", j.value("seed", json(0u)).is_number_unsigned(), "a non-negative integer");
  check("stopped_early", j.value("stopped_early", json(false)).is_boolean(), "true or false");
  r.error = j.value("error", "");
  r.trial = j.value("trial", int64_t{0});
  r.strategy = j.value("strategy", "");
  r.seed = j.value("seed", uint64_t{0});
  r.stopped_early = j.value("stopped_early", false);
  return r;
}

namespace {

// An open file descriptor with a flock(2) held on it, both released on destruction.
class LockedFile {
 public:
  LockedFile(const std::string& path, int flags, int lock, const std::string& db) {
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
    if (fd_ < 0) throw UserError("tuning database " + db + ": " + std::strerror(errno));
    while (::flock(fd_, lock) != 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd_);
      throw UserError("tuning database " + db + ": cannot lock it (" + why + ")");
    }
  }
  ~LockedFile() { ::close(fd_); }  // closing releases the lock
  LockedFile(const LockedFile&) = delete;
  LockedFile& operator=(const LockedFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// The content of `fd` from byte `at` on; UserError naming the database on a read error.
std::string read_all(int fd, const std::string& db, off_t at = 0) {
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UserError("tuning database " + db + ": " + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
}

bool write_all(int fd, const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// Whether `line` (without its newline) holds a record.
bool is_record(const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded()) return false;
  try {
    TuningRecord::from_json(j);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace

Database::Database(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path_.empty() || !fs::exists(path_, ec)) return;
  if (fs::is_directory(path_, ec))
    throw UserError("tuning database " + path_ + ": it is a directory, not a file");
  std::string text;
  {
    LockedFile f(path_, O_RDONLY, LOCK_SH, path_);
    text = read_all(f.fd(), path_);
  }
  size_t n = 0, at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const bool last_cut = nl == std::string::npos;
    const std::string line = text.substr(at, last_cut ? std::string::npos : nl - at);
    at = last_cut ? text.size() : nl + 1;
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (last_cut && (j.is_discarded() || !is_record(line))) {
      // An append interrupted by a crash: the record it was writing is lost, the others stay.
      std::cerr << "weft: tuning database " << path_ << ":" << n
                << ": the last line is cut short (an interrupted write); it is skipped\n";
      ++skipped_;
      break;
    }
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
  committed_ = records_.size();
}

void Database::add(TuningRecord r) { records_.push_back(std::move(r)); }

void Database::check_writable(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (fs::is_directory(path, ec))
      throw UserError(what + ": cannot write '" + path + "': it is a directory, not a file");
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) throw UserError(what + ": cannot write '" + path + "': " + std::strerror(errno));
    ::close(fd);
    return;
  }
  // A new file: where its folder exists a file must be creatable in it; where not, the folder
  // must be creatable (commit() makes it).
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::exists(parent, ec)) {
    check_output_dir(parent.string(), what);
  } else {
    check_output_file(path, what);
  }
}

void Database::commit() {
  if (path_.empty() || committed_ == records_.size()) return;
  namespace fs = std::filesystem;
  fs::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::string lines;
  for (size_t i = committed_; i < records_.size(); ++i) lines += records_[i].to_json().dump() + '\n';
  LockedFile f(path_, O_RDWR | O_CREAT | O_APPEND, LOCK_EX, path_);
  // A last line without its newline: cut short by a crashed writer (dropped), or a complete
  // record a person saved without one (kept, and ended).
  struct stat st;
  if (::fstat(f.fd(), &st) != 0)
    throw UserError("tuning database " + path_ + ": " + std::strerror(errno));
  if (st.st_size > 0) {
    // The tail holds the last line unless that line is longer than it (then read it all).
    off_t from = std::max<off_t>(0, st.st_size - (1 << 16));
    std::string text = read_all(f.fd(), path_, from);
    if (!text.empty() && text.back() != '\n') {
      if (text.rfind('\n') == std::string::npos && from > 0) {
        from = 0;
        text = read_all(f.fd(), path_);
      }
      const size_t nl = text.rfind('\n');
      const size_t cut = nl == std::string::npos ? 0 : nl + 1;
      const off_t start = from + static_cast<off_t>(cut);
      if (is_record(text.substr(cut))) {
        lines = "\n" + lines;
      } else if (::ftruncate(f.fd(), start) != 0) {
        throw UserError("tuning database " + path_ + ": cannot cut off its last, partial line (" +
                        std::strerror(errno) + ")");
      }
    }
  }
  if (!write_all(f.fd(), lines))
    throw UserError("tuning database " + path_ + ": appending failed (" + std::strerror(errno) +
                    ")");
  committed_ = records_.size();
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

namespace {

// A records file parsed once per process while its size and modification time stay the same:
// a network's lowering looks up every layer, and parsing every records file again for each
// lookup was a fifth of MobileNet V2's compile. A file that is absent or cannot be looked at is
// read as before (an absent one is empty); a corrupt one throws and is not kept. (A rewrite to
// the same size within one tick of the file system's clock would go unseen; writers append.)
std::shared_ptr<const Database> parsed(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::make_shared<const Database>(path);
  const auto time = fs::last_write_time(path, ec);
  if (ec) return std::make_shared<const Database>(path);
  struct Entry {
    std::uintmax_t size;
    fs::file_time_type time;
    std::shared_ptr<const Database> db;
  };
  static std::mutex mu;
  static std::map<std::string, Entry> files;
  std::lock_guard<std::mutex> lock(mu);
  auto it = files.find(path);
  if (it != files.end() && it->second.size == size && it->second.time == time) return it->second.db;
  auto db = std::make_shared<const Database>(path);
  files[path] = Entry{size, time, db};
  return db;
}

}  // namespace

std::optional<TuningRecord> lookup_best(const Workload& w, const Target& t,
                                        const std::string& db_path) {
  std::string wk = w.key(), tk = t.key();
  if (!db_path.empty())
    if (auto r = parsed(db_path)->best(wk, tk)) return r;
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
    auto r = parsed(f.string())->best(wk, tk);
    if (r && (!best || r->value < best->value)) best = r;
  }
  return best;
}

}  // namespace weft::rt::tune
