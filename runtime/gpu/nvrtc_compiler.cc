// NVRTC compilation with a cache; see nvrtc_compiler.h.
#include "runtime/gpu/nvrtc_compiler.h"

#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "hardware/isa/errors.h"

#ifndef WEFT_CUDA_INCLUDE_DIR
#define WEFT_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace weft::rt::gpu {

namespace {

std::mutex g_mutex;
std::map<uint64_t, std::string> g_memory;
CompileStats g_stats;
std::string g_disk = [] {
  const char* d = std::getenv("WEFT_CUDA_CACHE");
  return std::string(d ? d : "");
}();

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string include_dir() {
  const char* e = std::getenv("WEFT_CUDA_INCLUDE");
  return e ? e : WEFT_CUDA_INCLUDE_DIR;
}

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) {
    throw UserError(std::string("NVRTC ") + what + ": " + nvrtcGetErrorString(r));
  }
}

std::string run_nvrtc(const std::string& source, const std::string& arch, Emit emit) {
  nvrtcProgram p;
  check(nvrtcCreateProgram(&p, source.c_str(), "weft_kernel.cu", 0, nullptr, nullptr),
        "could not create a program");
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtcDestroyProgram(p); }
  } destroy{&p};
  // A real architecture (sm_XX) gives SASS; compute_XX would give PTX only.
  const std::string gpu = "--gpu-architecture=" + arch;
  const std::string inc = "--include-path=" + include_dir();
  const std::vector<const char*> opts = {gpu.c_str(), inc.c_str(), "-std=c++17"};
  const nvrtcResult r = nvrtcCompileProgram(p, static_cast<int>(opts.size()), opts.data());
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, '\0');
    if (n) nvrtcGetProgramLog(p, log.data());
    if (r == NVRTC_ERROR_INVALID_OPTION) {
      throw UserError("NVRTC does not accept architecture '" + arch + "' (it knows " +
                      nvrtc_archs() + "): " + log);
    }
    throw UserError("NVRTC could not compile the generated CUDA for " + arch + ":\n" + log);
  }
  std::string out;
  size_t n = 0;
  if (emit == Emit::kPtx) {
    check(nvrtcGetPTXSize(p, &n), "PTX size");
    out.resize(n);
    check(nvrtcGetPTX(p, out.data()), "PTX");
    if (!out.empty() && out.back() == '\0') out.pop_back();
  } else {
    check(nvrtcGetCUBINSize(p, &n), "cubin size");
    out.resize(n);
    check(nvrtcGetCUBIN(p, out.data()), "cubin");
  }
  return out;
}

}  // namespace

std::string nvrtc_compile(const std::string& source, const std::string& arch, Emit emit) {
  const std::string opts = arch + (emit == Emit::kPtx ? " ptx " : " cubin ") + nvrtc_version();
  const uint64_t key = fnv1a(source, fnv1a(opts));
  std::filesystem::path file;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_memory.find(key);
    if (it != g_memory.end()) {
      ++g_stats.memory_hits;
      return it->second;
    }
    if (!g_disk.empty()) {
      std::ostringstream name;
      name << std::hex << key << (emit == Emit::kPtx ? ".ptx" : ".cubin");
      file = std::filesystem::path(g_disk) / name.str();
      std::ifstream in(file, std::ios::binary);
      if (in) {
        std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ++g_stats.disk_hits;
        g_memory[key] = data;
        return data;
      }
    }
  }
  std::string out = run_nvrtc(source, arch, emit);
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_stats.compiles;
  g_memory[key] = out;
  if (!file.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    const std::filesystem::path tmp = file.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
    std::filesystem::rename(tmp, file, ec);  // atomic: a reader never sees half a file
  }
  return out;
}

CompileStats nvrtc_stats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_stats;
}

void clear_memory_cache() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_memory.clear();
}

void set_disk_cache(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_disk = dir;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvrtc_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return "?";
  std::vector<int> a(static_cast<size_t>(n));
  nvrtcGetSupportedArchs(a.data());
  std::string s;
  for (int x : a) s += (s.empty() ? "sm_" : ", sm_") + std::to_string(x);
  return s;
}

}  // namespace weft::rt::gpu
