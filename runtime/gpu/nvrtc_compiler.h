// NVRTC: CUDA C source to PTX or to a cubin for one GPU architecture, without a GPU. Results
// are cached by a hash of the source, the options and NVRTC's version: in memory for the
// process, and on disk when a cache directory is set (WEFT_CUDA_CACHE, or set_disk_cache).
// The only translation unit that includes nvrtc.h is nvrtc_compiler.cc.
#pragma once

#include <cstdint>
#include <string>

namespace weft::rt::gpu {

/// What NVRTC produces.
enum class Emit { kPtx, kCubin };

/// Counters of the compile cache.
struct CompileStats {
  int64_t compiles = 0, memory_hits = 0, disk_hits = 0;
};

/// Compiles `source` for `arch` ("sm_75", "sm_80", "sm_90", ...). The toolkit's include
/// directory is on the include path (for <mma.h> and <cuda_fp16.h>). UserError with NVRTC's
/// log when the source does not compile, or for an architecture NVRTC does not know.
std::string nvrtc_compile(const std::string& source, const std::string& arch, Emit emit);

/// The cache's counters so far.
CompileStats nvrtc_stats();
/// Forgets the in-memory cache (the on-disk one stays), as a new process would.
void clear_memory_cache();
/// Sets (or with "" clears) the on-disk cache directory (created when missing).
void set_disk_cache(const std::string& dir);
/// NVRTC's version, e.g. "13.0".
std::string nvrtc_version();
/// The architectures NVRTC can target, e.g. {"sm_75", ..., "sm_120"} as one string.
std::string nvrtc_archs();

}  // namespace weft::rt::gpu
