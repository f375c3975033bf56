// File helpers; see files.h.
#include "runtime/io/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "hardware/isa/errors.h"

namespace weft::rt {

namespace {

// The permissions a newly created file gets (0666 minus the umask); mkstemp uses 0600.
mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

std::string errno_text() { return std::strerror(errno); }

// Writes all of `size` bytes to `fd`; false (errno set) on failure.
bool write_all(int fd, const char* p, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Creates and removes a file in `dir` ("" = the working directory): "" when that works,
// else the system's reason.
std::string probe_file_in(const std::string& dir) {
  std::string tmp = (dir.empty() ? std::string(".") : dir) + "/.weft-probe.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return errno_text();
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_not_of('/') == std::string::npos
                           ? std::string::npos
                           : path.rfind('/', path.find_last_not_of('/'));
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void check_input_file(const std::string& path, const std::string& what) {
  if (path == "-") return;
  const std::string who = what.empty() ? "" : what + ": ";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    throw UserError(who + "cannot read '" + path + "': " + errno_text());
  }
  if (S_ISDIR(st.st_mode)) {
    throw UserError(who + "cannot read '" + path + "': it is a directory, not a file");
  }
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw UserError(who + "cannot read '" + path + "': " + errno_text());
  ::close(fd);
}

void check_output_file(const std::string& path, const std::string& what) {
  const std::string who = what.empty() ? "" : what + ": ";
  if (path.empty()) throw UserError(who + "the output file name is empty");
  if (path == "-") return;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      throw UserError(who + "cannot write '" + path + "': it is a directory, not a file");
    }
    if (!S_ISREG(st.st_mode)) return;  // a device or a pipe: written in place at the end
  }
  if (path.back() == '/') throw UserError(who + "cannot write '" + path + "': not a file name");
  const std::string dir = parent_of(path);
  if (!dir.empty()) {
    if (::stat(dir.c_str(), &st) != 0) {
      throw UserError(who + "cannot write '" + path + "': its folder '" + dir + "': " +
                      errno_text());
    }
    if (!S_ISDIR(st.st_mode)) {
      throw UserError(who + "cannot write '" + path + "': '" + dir + "' is not a directory");
    }
  }
  const std::string why = probe_file_in(dir);
  if (!why.empty()) {
    throw UserError(who + "cannot write '" + path + "': no file can be created in '" +
                    (dir.empty() ? "." : dir) + "' (" + why + ")");
  }
}

void check_output_dir(const std::string& dir, const std::string& what) {
  const std::string who = what.empty() ? "" : what + ": ";
  if (dir.empty()) throw UserError(who + "the output folder name is empty");
  // The folders that do not exist yet, innermost first.
  std::vector<std::string> missing;
  std::string at = dir;
  struct stat st;
  while (!at.empty() && ::stat(at.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      throw UserError(who + "cannot write into '" + dir + "': '" + at + "': " + errno_text());
    }
    missing.push_back(at);
    at = parent_of(at);
  }
  if (!at.empty() && !S_ISDIR(st.st_mode)) {
    throw UserError(who + "cannot write into '" + dir + "': '" + at + "' is not a directory");
  }
  std::string why;
  size_t made = 0;
  for (auto it = missing.rbegin(); it != missing.rend() && why.empty(); ++it) {
    if (::mkdir(it->c_str(), 0777) == 0) {
      ++made;
    } else {
      why = "cannot create the folder '" + *it + "' (" + errno_text() + ")";
    }
  }
  if (why.empty()) {
    const std::string probe = probe_file_in(dir);
    if (!probe.empty()) why = "no file can be created in it (" + probe + ")";
  }
  for (size_t i = 0; i < made; ++i) ::rmdir(missing[missing.size() - made + i].c_str());
  if (!why.empty()) throw UserError(who + "cannot write into '" + dir + "': " + why);
}

std::vector<uint8_t> read_file(const std::string& path) {
  if (path == "-") {
    std::vector<uint8_t> v((std::istreambuf_iterator<char>(std::cin)),
                           std::istreambuf_iterator<char>());
    return v;
  }
  check_input_file(path, "");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> v;
  try {
    v.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {  // libstdc++ throws on a read error (EIO, EISDIR)
    throw UserError("error while reading '" + path + "': " + errno_text());
  }
  if (in.bad()) throw UserError("error while reading '" + path + "'");
  return v;
}

std::string read_text_file(const std::string& path) {
  const std::vector<uint8_t> v = read_file(path);
  return std::string(v.begin(), v.end());
}

OutputSet::~OutputSet() {
  discard();
  guard_.reset();  // last: a Ctrl-C held off meanwhile stops the process only now
}

void OutputSet::discard() noexcept {
  for (const Staged& s : staged_) {
    if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
  }
  staged_.clear();
}

void OutputSet::add(const std::string& path, const void* data, size_t size) {
  if (!guard_) guard_ = std::make_unique<OutputGuard>();
  if (path.empty()) throw UserError("an output file name is empty");
  for (const Staged& s : staged_) {
    if (s.path == path) {
      throw UserError("'" + path + "' is given for two outputs" +
                      (path == "-" ? " (standard output)" : ""));
    }
  }
  const char* bytes = static_cast<const char*>(data);
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw UserError("cannot write '" + path + "': is a directory");
  if (path == "-" || (exists && !S_ISREG(st.st_mode))) {
    // Standard output, a device or a pipe: nothing to rename; written at commit().
    staged_.push_back({path, "", std::string(bytes, size), true});
    return;
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) throw UserError("cannot write '" + path + "': not a file name");
  std::string tmp = dir + "." + base.substr(0, 200) + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw UserError("cannot write '" + path + "': " + errno_text());
  if (::fchmod(fd, new_file_mode()) != 0 || !write_all(fd, bytes, size)) {
    const std::string err = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw UserError("error while writing '" + path + "': " + err);
  }
  if (::close(fd) != 0) {
    const std::string err = errno_text();
    ::unlink(tmp.c_str());
    throw UserError("error while writing '" + path + "': " + err);
  }
  staged_.push_back({path, tmp, "", false});
}

void OutputSet::commit() {
  for (const Staged& s : staged_) {
    struct stat st;
    if (!s.direct && ::stat(s.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      throw UserError("cannot write '" + s.path + "': is a directory");
    }
  }
  for (Staged& s : staged_) {
    if (s.direct) continue;
    if (std::rename(s.tmp.c_str(), s.path.c_str()) != 0) {
      throw UserError("cannot write '" + s.path + "': " + errno_text());
    }
    s.tmp.clear();  // in place: no longer ours to remove
  }
  for (const Staged& s : staged_) {
    if (s.path == "-") {
      std::cout.write(s.data.data(), static_cast<std::streamsize>(s.data.size()));
      std::cout.flush();
      if (!std::cout) throw UserError("error while writing to standard output");
    } else if (s.direct) {
      const int fd = ::open(s.path.c_str(), O_WRONLY | O_TRUNC);
      if (fd < 0) throw UserError("cannot write '" + s.path + "': " + errno_text());
      const bool ok = write_all(fd, s.data.data(), s.data.size());
      const std::string err = errno_text();
      if (::close(fd) != 0 || !ok) throw UserError("error while writing '" + s.path + "': " + err);
    }
  }
  staged_.clear();
}

void write_file(const std::string& path, const void* data, size_t size) {
  OutputSet out;
  out.add(path, data, size);
  out.commit();
}

uint64_t parse_size(const std::string& text, const std::string& what) {
  std::string t = text;
  uint64_t scale = 1;
  if (!t.empty() && (t.back() == 'K' || t.back() == 'M' || t.back() == 'G')) {
    scale = t.back() == 'K' ? 1ull << 10 : t.back() == 'M' ? 1ull << 20 : 1ull << 30;
    t.pop_back();
  }
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  const char* begin = t.data() + (hex ? 2 : 0);
  const char* end = t.data() + t.size();
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, v, hex ? 16 : 10);
  if (begin == end || ec != std::errc() || ptr != end || v > UINT64_MAX / scale) {
    const bool too_big = ec == std::errc::result_out_of_range || v > UINT64_MAX / scale;
    throw UserError(what + ": '" + text + "' is not a non-negative integer (decimal or 0x hex" +
                    (too_big ? ", below 2^64)" : ")"));
  }
  return v * scale;
}

}  // namespace weft::rt
