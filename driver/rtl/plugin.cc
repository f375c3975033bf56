// Building and loading RTL plugins; see plugin.h.
#include "driver/rtl/plugin.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <vector>

#include "hardware/isa/codegen.h"
#include "hardware/isa/embedded.h"
#include "hardware/isa/errors.h"

extern char** environ;

namespace weft::embedded {
// The RTL sources in file-list order, lint_waivers.vlt and the plugin's C++ files
// (driver/rtl/CMakeLists.txt embeds them).
const std::vector<EmbeddedFile>& rtl_plugin_sources();
}  // namespace weft::embedded

namespace weft::driver::rtl {

namespace {

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      const std::string prefix = path.substr(0, i);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        throw UserError("cannot create the folder '" + prefix + "' for RTL plugins");
      }
    }
  }
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw UserError("cannot write '" + path + "'");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs argv[0] (found on PATH) with its output in `log`; returns its exit status, or -1 when
// it could not be started.
int run_logged(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A model from a plugin; the library stays loaded for the life of the process (Verilator's
// runtime inside it keeps global state).
class PluginTop : public TopModel {
 public:
  explicit PluginTop(const weft_rtl_abi::WeftRtlPlugin* api) : api_(api), top_(api->create()) {
    api_->ports(top_, &io_);
  }
  ~PluginTop() override { api_->destroy(top_); }
  void eval() override { api_->eval(top_); }
  bool trace_open(const std::string& path) override {
    return api_->trace_open(top_, path.c_str()) != 0;
  }
  void trace_dump(uint64_t time) override { api_->trace_dump(top_, time); }
  void trace_close() override { api_->trace_close(top_); }

 private:
  const weft_rtl_abi::WeftRtlPlugin* api_;
  void* top_;
};

// What the RTL's data paths assume of a configuration (hardware/rtl/weft_buffer.sv,
// weft_acc_buffer.sv): at most four elements in a 16-byte beat, accumulator rows of a beat
// or more.
void check_rtl_supports(const isa::Layout& l) {
  struct Need {
    const char* what;
    int64_t bytes, min;
  };
  const isa::HwConfig& c = l.config;
  for (const Need& n : {Need{"INP elements (batch x block_in int8)", l.inp_elem_bytes, 4},
                        Need{"WGT elements (block_out x block_in int8)", l.wgt_elem_bytes, 4},
                        Need{"ACC elements (batch x block_out int32)", l.acc_elem_bytes, 16}}) {
    if (n.bytes < n.min) {
      throw UserError("configuration '" + c.name + "': the RTL needs " + n.what + " of at least " +
                      std::to_string(n.min) + " bytes; they are " + std::to_string(n.bytes) +
                      " (the cycle and functional engines run it)");
    }
  }
}

}  // namespace

std::string rtl_build_key(const isa::Layout& l) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, std::to_string(weft_rtl_abi::kPluginAbiVersion));
  h = fnv1a(h, isa::sv_package(l));
  for (const EmbeddedFile& f : embedded::rtl_plugin_sources()) h = fnv1a(fnv1a(h, f.name), f.text);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string rtl_cache_dir() {
  if (const char* d = std::getenv("WEFT_RTL_CACHE"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/weft/rtl";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/weft/rtl";
  throw UserError("no folder for RTL plugins: set WEFT_RTL_CACHE (or HOME)");
}

std::string rtl_plugin_path(const isa::Layout& l) {
  return rtl_cache_dir() + "/" + l.config.name + "-" + rtl_build_key(l) + ".so";
}

RtlBuildResult build_rtl_plugin(const isa::Layout& l, const RtlBuildOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  check_rtl_supports(l);
  RtlBuildResult r;
  r.path = rtl_plugin_path(l);
  if (exists(r.path) && !o.force) return r;
  auto say = [&](const std::string& m) {
    if (o.log) o.log(m);
  };

  // The sources, under the names lint_waivers.vlt's patterns expect (weft_pkg_<name>.sv).
  const std::string dir = r.path.substr(0, r.path.size() - 3) + ".build-" + std::to_string(::getpid());
  make_dirs(dir);
  std::vector<std::string> sv;
  sv.push_back(dir + "/weft_pkg_" + l.config.name + ".sv");
  write_file(sv.back(), isa::sv_package(l));
  std::string waivers;
  for (const EmbeddedFile& f : embedded::rtl_plugin_sources()) {
    write_file(dir + "/" + f.name, f.text);
    if (ends_with(f.name, ".sv")) sv.push_back(dir + "/" + f.name);
    if (ends_with(f.name, ".vlt")) waivers = dir + "/" + f.name;
  }
  write_file(dir + "/plugin_key.h",
             "#define WEFT_PLUGIN_BUILD_KEY \"" + rtl_build_key(l) + "\"\n");

  const std::string so = dir + "/plugin.so", log = dir + "/build.log";
  std::vector<std::string> args = {
      "verilator", "--cc", "--exe", "--build", "-j", std::to_string(std::max(1, o.jobs)),
      "--top-module", "weft_top", "--prefix", "Vweft_plugin", "-Mdir", dir + "/obj",
      "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wall", waivers, "--trace-fst",
      "-CFLAGS", "-fPIC -fvisibility=hidden -I" + dir,
      "-LDFLAGS", "-shared -Wl,--exclude-libs,ALL -Wl,-Bsymbolic", "-o", so};
  args.insert(args.end(), sv.begin(), sv.end());
  args.push_back(dir + "/plugin_shim.cc");
  say("verilating weft_top for configuration '" + l.config.name + "' in " + dir);
  const int rc = run_logged(args, log);
  if (rc == -1) {
    throw UserError("cannot run verilator to build the RTL of configuration '" + l.config.name +
                    "': it is not installed (sudo apt-get install verilator)");
  }
  if (rc != 0 || !exists(so)) {
    throw UserError("building the RTL of configuration '" + l.config.name +
                    "' failed (verilator exited with " + std::to_string(rc) + "); see " + log);
  }
  if (std::rename(so.c_str(), r.path.c_str()) != 0) {
    throw UserError("cannot move the RTL plugin to '" + r.path + "'");
  }
  run_logged({"rm", "-rf", dir}, "/dev/null");
  r.built = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say("built " + r.path);
  return r;
}

std::unique_ptr<TopModel> open_rtl_plugin(const isa::Layout& l) {
  const std::string path = rtl_plugin_path(l);
  if (!exists(path)) return nullptr;
  static std::mutex mu;
  static std::map<std::string, const weft_rtl_abi::WeftRtlPlugin*> loaded;
  std::lock_guard<std::mutex> lock(mu);
  const weft_rtl_abi::WeftRtlPlugin*& api = loaded[path];
  if (api == nullptr) {
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      loaded.erase(path);
      throw UserError("cannot load the RTL plugin '" + path + "': " + ::dlerror() +
                      " (rebuild it with `weft rtl build --force`)");
    }
    auto entry = reinterpret_cast<weft_rtl_abi::WeftRtlPluginEntry>(::dlsym(handle, "weft_rtl_plugin"));
    const weft_rtl_abi::WeftRtlPlugin* p = entry ? entry() : nullptr;
    if (p == nullptr || p->abi_version != weft_rtl_abi::kPluginAbiVersion ||
        rtl_build_key(l) != p->build_key) {
      loaded.erase(path);
      throw UserError("'" + path + "' is not an RTL plugin of this build of weft for "
                      "configuration '" + l.config.name + "' (rebuild it with `weft rtl build "
                      "--force`)");
    }
    api = p;
  }
  return std::make_unique<PluginTop>(api);
}

}  // namespace weft::driver::rtl
