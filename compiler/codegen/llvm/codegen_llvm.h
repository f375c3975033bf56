// The CPU backend's code generator: loop IR to LLVM IR (LLVM 16), optimized for the host CPU
// and JIT-compiled with ORC LLJIT. This header has no LLVM types, so callers (the runtime's
// CPU executor, tests, the CLI) compile fast; only files in compiler/codegen/llvm include
// LLVM (jit.cc the ORC and pass-builder headers; codegen_llvm.cc, parallel_outline.cc and
// x86_dot.cc the IR ones).
//
// What the generated code does with loop kinds:
//   serial      a plain loop.
//   unrolled    fully unrolled by the code generator (constant extent, at most 1024).
//   vectorized  one SIMD operation per statement over all lanes (constant extent, at most 64
//               lanes): contiguous accesses become vector loads/stores, others gathers/
//               scatters, lane-dependent guards become masks. A body the code generator cannot
//               vectorize (nested loops, a lane-dependent value stored to one address, a load
//               of a buffer it also stores at another index) falls back to a serial loop that
//               asks LLVM's loop vectorizer for that width.
//   parallel    the body is outlined into a task and handed to the host's parallel-for
//               (kParallelForSymbol), which the runtime provides with its thread pool.
// Buffers in a non-global scope (Allocate) live on the stack of the function (so LLVM keeps a
// register-blocked cache_write tile in registers); global buffers are arguments.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/lowered_func.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// The external the generated code calls for a parallel loop of `n` iterations:
///   void weft_parallel_for(int64_t n, void (*task)(int64_t i, void* closure), void* closure)
/// It must run task(i, closure) once for every i in [0, n) and return when all are done.
inline constexpr const char* kParallelForSymbol = "weft_parallel_for";

/// Host functions (name -> address) the generated code may call.
using HostSymbols = std::map<std::string, void*>;

/// A generated function as called from C++: args[i] is the base address of buffer args[i].
using Kernel = void (*)(void* const* args);

/// JIT-compiled functions for the host CPU; they live as long as this object.
class JitModule {
 public:
  virtual ~JitModule() = default;
  /// The function named `name`; UserError when there is none.
  virtual Kernel kernel(const std::string& name) const = 0;
  /// The optimized LLVM IR that was compiled.
  virtual const std::string& optimized_ir() const = 0;
};

/// Generates, optimizes (O3 for the host CPU) and JIT-compiles `funcs`. UserError for IR the
/// CPU backend cannot run (an unknown intrinsic, a loop kind it cannot honour, a non-constant
/// extent where one is needed), naming the function and the loop.
std::unique_ptr<JitModule> jit_compile(const std::vector<LoweredFunc>& funcs,
                                       const HostSymbols& symbols);

/// The optimized LLVM IR of `funcs` for the host CPU, without compiling it.
std::string emit_llvm(const std::vector<LoweredFunc>& funcs);

/// The largest local buffer (a schedule's cache or packed panel) the CPU code generator puts on
/// the stack; a schedule needing more is refused. The CPU dispatch sizes its panels under it.
constexpr int64_t kMaxLocalBufferBytes = 512 * 1024;

/// The name of the host CPU as LLVM sees it (e.g. "znver3"; LLVM 16 calls Zen 5 "generic").
std::string host_cpu_name();

/// The vector extensions of the host that the CPU schedules care about, from LLVM's
/// getHostCPUFeatures (never from the CPU's name).
struct HostIsa {
  bool avx2 = false, fma = false, avx512f = false, avx512bw = false, avx512vnni = false,
       avxvnni = false;
  /// "avx512-vnni", "avx512", "avx2" or "generic": the key of the CPU tuning records.
  std::string key() const;
  /// 32-bit lanes of one vector register (16 with AVX-512, 8 with AVX2, 4 otherwise).
  int lanes32() const { return avx512f ? 16 : (avx2 ? 8 : 4); }
  /// Vector registers (32 with AVX-512, else 16).
  int registers() const { return avx512f ? 32 : 16; }
};
/// The host's vector extensions as the backend uses them: what LLVM detects, less what the
/// ISA cap (cpu_isa) turns off.
HostIsa host_isa();

/// The vector-ISA cap (isa_cap.cc): "native" (everything the host has) or "avx2" (AVX-512 and
/// VNNI off: the JIT's target features and host_isa() as on an AVX2-only host). Set by
/// set_cpu_isa (`--cpu-isa`), else by the WEFT_CPU_ISA environment variable, else native;
/// UserError naming the value when it is neither.
std::string cpu_isa();
void set_cpu_isa(const std::string& isa);
/// `h` less the extensions the cap turns off.
HostIsa capped(HostIsa h);

/// The host as benchmark tables name it: the CPU's model name, family and model from
/// /proc/cpuinfo, LLVM's host CPU name and the vector features detected, e.g. "AMD EPYC
/// (family 26, model 2), LLVM host CPU generic, vector features: avx2 fma avx512f ...".
/// (host_cpu.cc)
std::string host_cpu_description();

}  // namespace weft::compiler::codegen
