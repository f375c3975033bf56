// Compiled accelerator programs cached as files; see program_cache.h.
#include "runtime/graph/program_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

namespace weft::rt::graph {

namespace {

using compiler::accel::Op;
constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'P', 'R', 'G', '1'};
constexpr int64_t kFormat = 3;  // 3: a STORE's requantization

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// The build that runs: the size and modification time of the file this code was loaded from
// (the weft binary, or the Python module).
const std::string& build_identity() {
  static const std::string id = [] {
    Dl_info info{};
    struct stat st {};
    if (::dladdr(reinterpret_cast<void*>(&fnv1a), &info) == 0 || !info.dli_fname ||
        ::stat(info.dli_fname, &st) != 0)
      return std::string("unknown");
    return std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return id;
}

class Writer {
 public:
  void i64(int64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), 8); }
  void i32(int64_t v) {
    const int32_t x = static_cast<int32_t>(v);
    bytes_.append(reinterpret_cast<const char*>(&x), 4);
  }
  void str(const std::string& s) {
    i64(static_cast<int64_t>(s.size()));
    bytes_ += s;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  Reader(const std::string& b, size_t at) : b_(b), at_(at) {}
  bool i64(int64_t* v) {
    if (b_.size() - at_ < 8) return false;
    std::memcpy(v, b_.data() + at_, 8);
    at_ += 8;
    return true;
  }
  bool i32(int64_t* v) {
    if (b_.size() - at_ < 4) return false;
    int32_t x = 0;
    std::memcpy(&x, b_.data() + at_, 4);
    at_ += 4;
    *v = x;
    return true;
  }
  bool str(std::string* s) {
    int64_t n = 0;
    if (!i64(&n) || n < 0 || static_cast<size_t>(n) > b_.size() - at_) return false;
    s->assign(b_, at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return true;
  }
  bool done() const { return at_ == b_.size(); }

 private:
  const std::string& b_;
  size_t at_;
};

// Every field of an operation, in one order for writing and reading.
// Micro-op fields (on-chip indices, under 2^16) go through f32 as 32-bit values: a network's
// programs hold millions of them.
template <typename F, typename F32>
bool fields(Op& o, int64_t& role, F&& f, F32&& f32) {
  int64_t kind = int64_t(o.kind), module = int64_t(o.module), mem = int64_t(o.mem),
          alu = int64_t(o.alu_op), from = int64_t(o.from), to = int64_t(o.to), reset = o.reset,
          imm_on = o.use_imm, nuops = static_cast<int64_t>(o.uops.size()),
          requant = isa::store_requant_bits(o.requant);
  for (int64_t* v : {&kind, &module, &mem, &role, &o.sram_base, &o.dram_offset, &o.y_size,
                     &o.x_size, &o.x_stride, &o.y_pad0, &o.y_pad1, &o.x_pad0, &o.x_pad1, &reset,
                     &alu, &imm_on, &o.imm, &o.iter_out, &o.iter_in, &o.dst_factor_out,
                     &o.dst_factor_in, &o.src_factor_out, &o.src_factor_in, &o.wgt_factor_out,
                     &o.wgt_factor_in, &from, &to, &requant, &nuops})
    if (!f(v)) return false;
  if (kind < 0 || kind > int64_t(Op::Kind::kDepPop) || nuops < 0 || nuops > (int64_t{1} << 24))
    return false;
  o.kind = Op::Kind(kind), o.module = isa::Module(module), o.mem = isa::MemType(mem);
  o.alu_op = isa::AluOp(alu), o.from = isa::Module(from), o.to = isa::Module(to);
  o.reset = reset != 0, o.use_imm = imm_on != 0;
  std::string why;
  if (!isa::store_requant_from_bits(requant, &o.requant, &why)) return false;
  o.uops.resize(static_cast<size_t>(nuops));
  for (isa::Uop& u : o.uops)
    for (int64_t* v : {&u.dst, &u.src, &u.wgt})
      if (!f32(v)) return false;
  return true;
}

int64_t role_of(const compiler::ir::Buffer& b, const std::vector<compiler::ir::Buffer>& roles) {
  if (!b) return -1;
  for (size_t i = 0; i < roles.size(); ++i)
    if (roles[i] == b) return static_cast<int64_t>(i);
  return -2;  // not a role: the program cannot be stored
}

}  // namespace

std::string default_program_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string base = xdg && *xdg ? xdg : home && *home ? std::string(home) + "/.cache" : "";
  return base.empty() ? "" : base + "/weft/programs";
}

ProgramFileCache::ProgramFileCache(std::string dir) : dir_(std::move(dir)) {}

std::string ProgramFileCache::file_for(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.prog",
                static_cast<unsigned long long>(fnv1a(key.data(), key.size())));
  return dir_ + "/" + name;
}

std::optional<compiler::graph::StoredProgram> ProgramFileCache::find(
    const std::string& key, const std::vector<compiler::ir::Buffer>& roles) {
  if (dir_.empty()) return std::nullopt;
  const std::string path = file_for(key);
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) {
    ++misses_;
    return std::nullopt;
  }
  std::string b(static_cast<size_t>(std::max<std::streamoff>(f.tellg(), 0)), '\0');
  f.seekg(0);
  f.read(b.data(), static_cast<std::streamsize>(b.size()));
  if (!f) b.clear();  // read as "not a program cache file"
  auto bad = [&](const char* why) -> std::optional<compiler::graph::StoredProgram> {
    if (!read_warned_)
      std::cerr << "weft: ignoring the cached program '" << path << "' (" << why
                << "); compiling it again\n";
    read_warned_ = true;
    ++misses_;
    return std::nullopt;
  };
  if (b.size() < sizeof(kMagic) + 8 || std::memcmp(b.data(), kMagic, sizeof(kMagic)) != 0)
    return bad("not a program cache file");
  uint64_t sum = 0;
  std::memcpy(&sum, b.data() + b.size() - 8, 8);
  const std::string body = b.substr(sizeof(kMagic), b.size() - sizeof(kMagic) - 8);
  if (fnv1a(body.data(), body.size()) != sum) return bad("corrupt: its checksum does not match");
  Reader r(body, 0);
  int64_t format = 0, nops = 0, ntensors = 0, nrewrites = 0;
  std::string build, stored_key;
  if (!r.i64(&format) || format != kFormat || !r.str(&build) || !r.str(&stored_key))
    return bad("another format");
  if (build != build_identity() || stored_key != key) {
    ++misses_;  // another build's program, or another key with the same hash: not an error
    return std::nullopt;
  }
  compiler::graph::StoredProgram out;
  if (!r.i64(&nrewrites) || nrewrites < 0 || nrewrites > 64) return bad("corrupt");
  out.rewrites.resize(static_cast<size_t>(nrewrites));
  for (std::string& s : out.rewrites)
    if (!r.str(&s)) return bad("corrupt");
  auto buffer = [&](int64_t role, compiler::ir::Buffer* b) {
    if (role == -1) return true;
    if (role < 0 || role >= static_cast<int64_t>(roles.size()) || !roles[role]) return false;
    *b = roles[static_cast<size_t>(role)];
    return true;
  };
  if (!r.i64(&ntensors) || ntensors < 0 || ntensors > 64) return bad("corrupt");
  out.program.tensors.resize(static_cast<size_t>(ntensors));
  for (auto& t : out.program.tensors) {
    int64_t role = 0;
    if (!r.i64(&role) || !buffer(role, &t)) return bad("corrupt");
  }
  if (!r.i64(&nops) || nops < 0 || nops > (int64_t{1} << 24)) return bad("corrupt");
  out.program.ops.resize(static_cast<size_t>(nops));
  for (Op& o : out.program.ops) {
    int64_t role = 0;
    if (!fields(o, role, [&](int64_t* v) { return r.i64(v); },
                [&](int64_t* v) { return r.i32(v); }) ||
        !buffer(role, &o.tensor))
      return bad("corrupt");
  }
  if (!r.done()) return bad("corrupt: bytes after the program");
  ++hits_;
  return out;
}

void ProgramFileCache::put(const std::string& key, const compiler::graph::StoredProgram& p,
                           const std::vector<compiler::ir::Buffer>& roles) {
  if (dir_.empty() || write_failed_) return;
  Writer w;
  w.i64(kFormat);
  w.str(build_identity());
  w.str(key);
  w.i64(static_cast<int64_t>(p.rewrites.size()));
  for (const std::string& s : p.rewrites) w.str(s);
  w.i64(static_cast<int64_t>(p.program.tensors.size()));
  for (const auto& t : p.program.tensors) {
    const int64_t role = role_of(t, roles);
    if (role == -2) return;
    w.i64(role);
  }
  w.i64(static_cast<int64_t>(p.program.ops.size()));
  for (const Op& op : p.program.ops) {
    Op o = op;
    int64_t role = role_of(o.tensor, roles);
    if (role == -2) return;
    fields(
        o, role,
        [&](int64_t* v) {
          w.i64(*v);
          return true;
        },
        [&](int64_t* v) {
          w.i32(*v);
          return true;
        });
  }
  const uint64_t sum = fnv1a(w.bytes().data(), w.bytes().size());
  std::string file(kMagic, sizeof(kMagic));
  file += w.bytes();
  file.append(reinterpret_cast<const char*>(&sum), 8);

  auto fail = [&](const std::string& why) {
    std::cerr << "weft: not caching compiled programs in '" << dir_ << "': " << why
              << " (the run goes on without the cache)\n";
    write_failed_ = true;
  };
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return fail(ec.message());
  std::string tmp = file_for(key) + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return fail(std::strerror(errno));
  size_t at = 0;
  while (at < file.size()) {
    const ssize_t n = ::write(fd, file.data() + at, file.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail(why);
    }
    at += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::close(fd) != 0 || ::rename(tmp.c_str(), file_for(key).c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail(why);
  }
  ++writes_;
}

}  // namespace weft::rt::graph
